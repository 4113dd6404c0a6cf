package io.dkv.compute.command;

import io.dkv.client.ordered.SortedSet;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * ZSCAN key cursor [MATCH pattern] [COUNT count]: a sorted set of up to {@link #WHOLE} members comes whole in one
 * call, by score, with cursor 0 and its scores as redis's listpack keeps them (d2string), as redis answers a small
 * sorted set; a larger one by steps of {@link SortedSet#scanStep}, its cursor a member hash.
 */
final class SortedSetScan
{
    /** Redis's zset-max-listpack-entries: up to this many members a sorted set is answered whole. */
    static final int WHOLE = 128;

    private SortedSetScan()
    {
    }

    static void scan(final KeyStore store, final byte[][] args, final ByteBuf out)
    {
        final CollectionScan.Options options = CollectionScan.Options.parse(args, 2, false, out);
        if (options == null)
        {
            return;
        }
        final List<byte[]> found = new ArrayList<>();
        final long next = store.atomically(tx ->
        {
            found.clear();
            final SortedSet set = SortedSetCommands.open(tx, args[1]);
            if (set.size() <= WHOLE)
            {
                set.forEach(0, set.size(), false, (member, score) -> add(found, options, member,
                    Scores.d2string(score)));
                return 0L;
            }
            return set.scanStep(options.cursor(), options.count(), (member, score) -> add(found, options, member,
                Scores.format(score)));
        });
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, Long.toUnsignedString(next));
        RespReplies.arrayHeader(out, found.size());
        found.forEach(element -> RespReplies.bulk(out, element));
    }

    private static boolean add(final List<byte[]> found, final CollectionScan.Options options, final byte[] member,
        final String score)
    {
        if (options.matches(member))
        {
            found.add(member);
            found.add(score.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        return true;
    }
}
