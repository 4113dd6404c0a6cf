package io.dkv.compute.command;

import io.dkv.client.collection.Collection;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * HSCAN and SSCAN key cursor [MATCH pattern] [COUNT count]: steps of {@link Collection#scanStep} in one read-only
 * transaction until COUNT elements are found or the scan ends; a collection of one segment comes whole in one call
 * with cursor 0, as redis answers a small (listpack) hash or set.
 */
final class CollectionScan
{
    /** Steps of one call at most, per element asked: a sparse collection is still answered in bounded work. */
    private static final int STEPS_PER_ELEMENT = 10;

    private CollectionScan()
    {
    }

    /** What a scan of one value's elements was asked: where from, how many, matching what (null: everything). */
    record Options(long cursor, long count, KeyPattern pattern)
    {
        /**
         * @param first the argument after the key (the cursor).
         * @param mask  true to read a cursor past what any scan returns from its low 63 bits, as HSCAN does.
         * @return the options, or null when they are refused (the error is written to {@code out}).
         */
        static Options parse(final byte[][] args, final int first, final boolean mask, final ByteBuf out)
        {
            final Long cursor = CollectionScan.cursor(args[first]);
            if (cursor == null)
            {
                RespReplies.error(out, "ERR invalid cursor");
                return null;
            }
            long count = 10;
            KeyPattern pattern = null;
            for (int i = first + 1; i < args.length; i += 2)
            {
                if (i + 1 >= args.length)
                {
                    RespReplies.error(out, Errors.SYNTAX);
                    return null;
                }
                if (CommandTable.is(args[i], "count"))
                {
                    if (!RespNumbers.isLong(args[i + 1]))
                    {
                        RespReplies.error(out, Errors.NOT_INTEGER);
                        return null;
                    }
                    count = RespNumbers.parseLong(args[i + 1]);
                    if (count < 1)
                    {
                        RespReplies.error(out, Errors.SYNTAX);
                        return null;
                    }
                }
                else if (CommandTable.is(args[i], "match"))
                {
                    final KeyPattern given = KeyPattern.of(args[i + 1]);
                    // "*" alone: no matching at all, as redis skips it
                    pattern = given.matchesEverything() && args[i + 1].length == 1 ? null : given;
                }
                else
                {
                    RespReplies.error(out, Errors.SYNTAX);
                    return null;
                }
            }
            // a cursor past what any scan returns starts from its low bits, as in redis
            return new Options(mask ? cursor & Long.MAX_VALUE : cursor, count, pattern);
        }

        boolean matches(final byte[] element)
        {
            return pattern == null || pattern.matches(element);
        }
    }

    static void scan(final KeyStore store, final byte[][] args, final ByteBuf out, final int kind)
    {
        final Options options = Options.parse(args, 2, true, out);
        if (options == null)
        {
            return;
        }
        final long cursor = options.cursor();
        final long asked = options.count();
        final KeyPattern matching = options.pattern();
        final boolean values = kind == ValueKind.HASH;
        final List<byte[]> found = new ArrayList<>();
        final long next = store.atomically(tx ->
        {
            found.clear();
            final Collection collection = CollectionOps.open(tx, args[1], kind);
            long at = cursor;
            long steps = Math.max(1, Math.min(asked, Integer.MAX_VALUE / STEPS_PER_ELEMENT) * STEPS_PER_ELEMENT);
            do
            {
                at = collection.scanStep(at, (field, value) ->
                {
                    if (matching == null || matching.matches(field))
                    {
                        found.add(field);
                        if (values)
                        {
                            found.add(value);
                        }
                    }
                });
            }
            while (at != 0 && (values ? found.size() / 2 : found.size()) < asked && --steps > 0);
            return at;
        });
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, Long.toUnsignedString(next));
        RespReplies.arrayHeader(out, found.size());
        found.forEach(element -> RespReplies.bulk(out, element));
    }

    /** @return the cursor as redis's strtoul reads a whole argument (unsigned), or null when it is not one. */
    private static Long cursor(final byte[] text)
    {
        if (text.length == 0 || text.length > 20)
        {
            return null;
        }
        long value = 0;
        for (final byte b : text)
        {
            if (b < '0' || b > '9')
            {
                return null;
            }
            final long next = value * 10 + (b - '0');
            if (Long.compareUnsigned(Long.divideUnsigned(next, 10), value) != 0)
            {
                return null;
            }
            value = next;
        }
        return value;
    }
}
