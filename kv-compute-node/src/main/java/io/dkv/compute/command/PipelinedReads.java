package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

import static io.dkv.compute.command.CommandTable.is;

/**
 * A connection's run of pipelined reads (GET, and MGET of one key), held while the requests read from the socket
 * together are taken one by one, and looked up together by one {@link KvClient#multiGet}: the candidate buckets of all
 * their keys go out in doorbell batches rather than a round trip per GET. Anything else ends the run: the connection
 * runs the reads held first, then that request, so that a write between two reads is seen by the second and replies
 * keep the requests' order. An MGET of several keys is not taken: its keys are read as of one instant (a read-only
 * transaction, so that it never sees part of an MSET), which a multiGet does not give. Nor is anything inside MULTI,
 * where a GET is queued for EXEC. Touched by the connection's event loop thread only.
 */
public final class PipelinedReads
{
    /** Keys held at most: a run this long is looked up before more are taken. */
    public static final int MAX_KEYS = 1024;

    private final CommandTable table;
    private final KvClient client;
    private final NodeStats stats;
    private final List<byte[][]> requests = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private int lastRunKeys;
    private int lastRunBytes;

    public PipelinedReads(final CommandTable table)
    {
        this.table = table;
        this.client = table.environment().client();
        this.stats = table.environment().stats();
    }

    /**
     * Take a request into the run when it is a read that may join it: a GET, or an MGET of one key, outside MULTI.
     *
     * @param maxKeys keys the run may hold, at most {@link #MAX_KEYS}: a run that reaches it is looked up now.
     * @return false when it is not (the caller runs the run, then the request).
     */
    public boolean offer(final Session session, final byte[][] args, final ByteBuf out, final int maxKeys)
    {
        // a connection yet to authenticate gets NOAUTH from the table, in order
        if (!session.authenticated() || session.inMulti() || args.length != 2 ||
            !is(args[0], "get") && !is(args[0], "mget") || table.scriptsBusy())
        {
            return false;
        }
        requests.add(args);
        for (int i = 1; i < args.length; i++)
        {
            keys.add(args[i]);
        }
        if (keys.size() >= Math.min(maxKeys, MAX_KEYS))
        {
            run(session, out);
        }
        return true;
    }

    /** @return true while reads are held, not yet answered. */
    public boolean holding()
    {
        return !requests.isEmpty();
    }

    /** @return keys of the last run answered. */
    public int lastRunKeys()
    {
        return lastRunKeys;
    }

    /** @return reply bytes of the last run answered. */
    public int lastRunBytes()
    {
        return lastRunBytes;
    }

    /** Answer the reads held, in their order, and begin a new run. */
    public void run(final Session session, final ByteBuf out)
    {
        if (requests.isEmpty())
        {
            return;
        }
        lastRunKeys = keys.size();
        final int before = out.writerIndex();
        if (requests.size() == 1)
        {
            table.execute(session, requests.get(0), out);
        }
        else
        {
            lookUpTogether(session, out);
        }
        lastRunBytes = out.writerIndex() - before;
        requests.clear();
        keys.clear();
    }

    private void lookUpTogether(final Session session, final ByteBuf out)
    {
        final List<byte[]> values;
        final long began = stats.nanoClock().nanoTime();
        try
        {
            values = client.multiGetMarking(keys);
        }
        catch (final RuntimeException ex)
        {
            // a key the client refuses (an empty one) or a store error: each request gets its own reply, as alone
            for (final byte[][] request : requests)
            {
                table.execute(session, request, out);
            }
            return;
        }
        stats.readsBatched(requests.size());
        // each request's share of the lookup they made together, for INFO commandstats
        final long share = (stats.nanoClock().nanoTime() - began) / requests.size();
        int next = 0;
        for (final byte[][] request : requests)
        {
            if (holdsPieces(values, next, request.length - 1))
            {
                // a string in pieces goes out a piece at a time: this request runs on its own
                next += request.length - 1;
                table.execute(session, request, out);
                continue;
            }
            stats.command();
            stats.commandStats().called(is(request[0], "get") ? "get" : "mget", share);
            if (is(request[0], "get"))
            {
                final byte[] value = values.get(next++);
                if (value == KvClient.COLLECTION)
                {
                    stats.commandStats().error(Errors.WRONGTYPE);
                    RespReplies.error(out, Errors.WRONGTYPE);
                }
                else
                {
                    RespReplies.bulkOrNull(out, value, session.protocol());
                }
            }
            else
            {
                RespReplies.arrayHeader(out, request.length - 1);
                for (int i = 1; i < request.length; i++)
                {
                    final byte[] value = values.get(next++);
                    RespReplies.bulkOrNull(out, value == KvClient.COLLECTION ? null : value, session.protocol());
                }
            }
        }
    }

    private static boolean holdsPieces(final List<byte[]> values, final int from, final int count)
    {
        for (int i = from; i < from + count; i++)
        {
            if (values.get(i) == KvClient.PIECES)
            {
                return true;
            }
        }
        return false;
    }
}
