package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.ClientKeyStore;
import io.dkv.format.KvBlockLayout;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.is;

/**
 * A connection's MGET, DEL or EXISTS of many keys, run a slice of keys at a time so that its event loop serves other
 * connections between slices (the connection schedules each next slice): one MGET of 65,535 keys held its loop for all
 * of them. The reply is the one the command gives run whole: MGET's array goes out slice by slice, DEL's and EXISTS's
 * count once the last slice is done. A sliced DEL deletes key by key (one of up to 256 keys is one transaction):
 * another connection may see some of its keys gone and others not yet. A sliced MGET is not read as of one instant, as
 * an MGET of fewer keys is (a read-only transaction, which would hold the loop for all its keys): it may see part of an
 * MSET. MSET and MSETNX are not sliced: each is one transaction. Touched by the connection's event loop thread only.
 */
public final class SlicedCommand
{
    /** Keys of one slice at most, and the fewest keys a command has to be sliced. */
    public static final int SLICE_KEYS = 256;

    private static final int MGET = 1;
    private static final int DEL = 2;
    private static final int EXISTS = 3;

    private final KvClient client;
    private final ClientKeyStore store;
    private final NodeStats stats;
    private final CommandTable table;
    private byte[][] args;
    private int kind;
    private int next;
    private long count;

    public SlicedCommand(final CommandTable table)
    {
        this.table = table;
        this.client = table.environment().client();
        this.store = new ClientKeyStore(client);
        this.stats = table.environment().stats();
    }

    /**
     * Begin a request when it is one to slice: an authenticated connection's MGET, DEL or EXISTS of more than
     * {@link #SLICE_KEYS} keys, each of a length the store takes (a request with any other key runs whole, and gets the
     * error it gets whole), outside MULTI (inside, it is queued for EXEC, which runs it whole in its transaction).
     *
     * @return false when it is not (the caller runs it whole).
     */
    public boolean start(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length - 1 <= SLICE_KEYS || !session.authenticated() || session.inMulti() || table.scriptsBusy())
        {
            return false;
        }
        final int kind = is(args[0], "mget") ? MGET : is(args[0], "del") ? DEL : is(args[0], "exists") ? EXISTS : 0;
        if (kind == 0)
        {
            return false;
        }
        for (int i = 1; i < args.length; i++)
        {
            if (args[i].length == 0 || args[i].length > KvBlockLayout.MAX_KEY_LENGTH)
            {
                return false;
            }
        }
        this.args = args;
        this.kind = kind;
        this.next = 1;
        this.count = 0;
        stats.command();
        stats.commandStats().called(kind == MGET ? "mget" : kind == DEL ? "del" : "exists", 0);
        if (kind == MGET)
        {
            RespReplies.arrayHeader(out, args.length - 1);
        }
        return true;
    }

    /** @return true while a request is begun and not done. */
    public boolean active()
    {
        return args != null;
    }

    /**
     * Run the next slice, writing its part of the reply.
     *
     * @param maxKeys keys of this slice at most (at most {@link #SLICE_KEYS} are taken).
     * @return the keys it took; negative when a store error came after part of an MGET's array had gone out, which no
     * reply can mend: the connection must close.
     */
    public int next(final Session session, final ByteBuf out, final int maxKeys)
    {
        final int from = next;
        final int to = Math.min(args.length, from + Math.max(1, Math.min(maxKeys, SLICE_KEYS)));
        final List<byte[]> keys = Arrays.asList(args).subList(from, to);
        try
        {
            switch (kind)
            {
                case MGET ->
                {
                    for (final byte[] value : client.multiGet(keys))
                    {
                        RespReplies.bulkOrNull(out, value, session.protocol());
                    }
                }
                case DEL ->
                {
                    for (final byte[] key : keys)
                    {
                        count += store.delete(key) ? 1 : 0;
                    }
                }
                default ->
                {
                    // a hash or a set exists too
                    for (final byte[] value : client.multiGetMarking(keys))
                    {
                        count += value != null ? 1 : 0;
                    }
                }
            }
        }
        catch (final RuntimeException ex)
        {
            final boolean broken = kind == MGET;
            if (!broken)
            {
                // as the command run whole answers a store error: the keys deleted before it stay deleted
                RespReplies.error(out, StoreError.reply(ex));
            }
            args = null;
            return broken ? -1 : to - from;
        }
        next = to;
        if (next == args.length)
        {
            if (kind != MGET)
            {
                RespReplies.integer(out, count);
            }
            args = null;
        }
        return to - from;
    }

    /** Drop what is under way: the connection is gone. */
    public void abandon()
    {
        args = null;
    }
}
