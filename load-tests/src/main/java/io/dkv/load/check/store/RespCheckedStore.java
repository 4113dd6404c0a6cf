package io.dkv.load.check.store;

import io.dkv.load.resp.RespSocket;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The store under test as a Redis client sees it: RESP to compute nodes, GET for a read, SET for a write, SET IFEQ for
 * a compare-and-set (SET NX when it expects no value), BLPOP for a blocking pop. Each operation takes an idle
 * connection or opens one, to the compute node this client prefers or, when that one refuses, the next; a connection
 * whose call went wrong is closed, so the next operation connects afresh (to a restarted node, or another). What went
 * wrong is thrown, and the operation's outcome is then unknown, as a reply that never came may still have been
 * applied.
 */
public final class RespCheckedStore implements CheckedStore, QueueStore, ScriptStore, AutoCloseable
{
    private static final byte[] GET = bytes("GET");
    private static final byte[] SET = bytes("SET");
    private static final byte[] NX = bytes("NX");
    private static final byte[] IFEQ = bytes("IFEQ");
    private static final byte[] WATCH = bytes("WATCH");
    private static final byte[] MULTI = bytes("MULTI");
    private static final byte[] EXEC = bytes("EXEC");
    private static final byte[] RPUSH = bytes("RPUSH");
    private static final byte[] LRANGE = bytes("LRANGE");
    private static final byte[] EVAL = bytes("EVAL");
    private static final byte[] EVAL_RO = bytes("EVAL_RO");
    private static final byte[] BLPOP = bytes("BLPOP");
    private static final RespSocket.Simple OK = new RespSocket.Simple("OK");
    private static final RespSocket.Simple QUEUED = new RespSocket.Simple("QUEUED");

    private final List<String> endpoints;
    private final int timeoutMs;
    private final Queue<RespSocket> idle = new ConcurrentLinkedQueue<>();
    private final AtomicInteger preferred = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param endpoints the compute nodes' host:port, the one this client prefers first.
     * @param timeoutMs how long connecting and each reply may take.
     */
    public RespCheckedStore(final List<String> endpoints, final int timeoutMs)
    {
        if (endpoints.isEmpty())
        {
            throw new IllegalArgumentException("a RESP store needs at least one compute node");
        }
        this.endpoints = List.copyOf(endpoints);
        this.timeoutMs = timeoutMs;
    }

    public byte[] get(final String key)
    {
        final Object reply = call(GET, bytes(key));
        if (reply != null && !(reply instanceof byte[]))
        {
            throw new IllegalStateException("GET " + key + " answered " + reply + ", not a bulk string or nil");
        }
        return (byte[])reply;
    }

    public void put(final String key, final byte[] value)
    {
        final Object reply = call(SET, bytes(key), value);
        if (!OK.equals(reply))
        {
            throw new IllegalStateException("SET " + key + " answered " + describe(reply) + ", not OK");
        }
    }

    public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
    {
        final Object reply = expected == null ? call(SET, bytes(key), value, NX) :
            call(SET, bytes(key), value, IFEQ, expected);
        if (reply != null && !OK.equals(reply))
        {
            throw new IllegalStateException("SET " + key + (expected == null ? " NX" : " IFEQ") + " answered " +
                describe(reply) + ", not OK or nil");
        }
        return reply != null;
    }

    /**
     * A transaction as a Redis client writes one: each key WATCHed before it is read, the writes queued between MULTI
     * and EXEC on the same connection; EXEC answers nil when a watched key changed, and the function runs again.
     */
    public <T> T transact(final Function<TxnView, T> body)
    {
        while (true)
        {
            final RespSocket connection = connection();
            try
            {
                final Map<String, byte[]> writes = new LinkedHashMap<>();
                final T result = body.apply(new TxnView()
                {
                    public byte[] get(final String key)
                    {
                        if (writes.containsKey(key))
                        {
                            return writes.get(key);
                        }
                        expect(OK, connection.call(WATCH, bytes(key)), "WATCH " + key);
                        final Object reply = connection.call(GET, bytes(key));
                        if (reply != null && !(reply instanceof byte[]))
                        {
                            throw new IllegalStateException("GET " + key + " answered " + describe(reply));
                        }
                        return (byte[])reply;
                    }

                    public void put(final String key, final byte[] value)
                    {
                        writes.put(key, value);
                    }
                });
                if (writes.isEmpty())
                {
                    // reads alone: each was watched, so an EXEC of nothing says whether they held together
                    expect(OK, connection.call(MULTI), "MULTI");
                }
                else
                {
                    expect(OK, connection.call(MULTI), "MULTI");
                    for (final Map.Entry<String, byte[]> write : writes.entrySet())
                    {
                        expect(QUEUED, connection.call(SET, bytes(write.getKey()), write.getValue()),
                            "SET " + write.getKey() + " in MULTI");
                    }
                }
                final Object executed = connection.call(EXEC);
                idle.offer(connection);
                if (executed instanceof List<?> replies && replies.size() == writes.size())
                {
                    return result;
                }
                if (executed != null)
                {
                    throw new IllegalStateException("EXEC answered " + describe(executed));
                }
                // a watched key changed: nothing was written; run it again
            }
            catch (final RuntimeException ex)
            {
                connection.close();
                throw ex;
            }
        }
    }

    /** One step: RPUSH or LRANGE 0 -1 alone; several: queued between MULTI and EXEC on one connection. */
    public List<List<byte[]>> listSteps(final List<ListStep> steps)
    {
        final RespSocket connection = connection();
        try
        {
            final List<Object> replies;
            if (steps.size() == 1)
            {
                replies = List.of(connection.call(command(steps.getFirst())));
            }
            else
            {
                expect(OK, connection.call(MULTI), "MULTI");
                for (final ListStep step : steps)
                {
                    expect(QUEUED, connection.call(command(step)), "a list command in MULTI");
                }
                final Object executed = connection.call(EXEC);
                if (!(executed instanceof List<?> all) || all.size() != steps.size())
                {
                    throw new IllegalStateException("EXEC of " + steps.size() + " list commands answered " +
                        describe(executed));
                }
                replies = new ArrayList<>(all);
            }
            idle.offer(connection);
            final List<List<byte[]>> results = new ArrayList<>(steps.size());
            for (int i = 0; i < steps.size(); i++)
            {
                results.add(result(steps.get(i), replies.get(i)));
            }
            return results;
        }
        catch (final RuntimeException ex)
        {
            connection.close();
            throw ex;
        }
    }

    /** BLPOP key timeout, the timeout in seconds with decimals: its reply {@code [key, element]} or a null array. */
    public byte[] blockingPop(final String key, final long timeoutMs)
    {
        if (timeoutMs <= 0)
        {
            throw new IllegalArgumentException("BLPOP " + key + " with a timeout of " + timeoutMs +
                " ms: a blocking pop needs one of at least 1 ms (0 would wait for ever)");
        }
        final Object reply = call(BLPOP, bytes(key), bytes(String.format(Locale.ROOT, "%.3f", timeoutMs / 1e3)));
        if (reply == null)
        {
            return null;
        }
        if (reply instanceof List<?> pair && pair.size() == 2 && pair.get(1) instanceof byte[] element &&
            pair.get(0) instanceof byte[] from && key.equals(new String(from, StandardCharsets.UTF_8)))
        {
            return element;
        }
        throw new IllegalStateException("BLPOP " + key + " answered " + describe(reply) + ", not [" + key +
            ", element] or nil");
    }

    /** EVAL (or EVAL_RO) script numkeys key... arg...: its reply as {@link #call} gives it. */
    public Object eval(final String script, final boolean readOnly, final List<String> keys, final List<String> args)
    {
        final byte[][] request = new byte[3 + keys.size() + args.size()][];
        request[0] = readOnly ? EVAL_RO : EVAL;
        request[1] = bytes(script);
        request[2] = bytes(Integer.toString(keys.size()));
        for (int i = 0; i < keys.size(); i++)
        {
            request[3 + i] = bytes(keys.get(i));
        }
        for (int i = 0; i < args.size(); i++)
        {
            request[3 + keys.size() + i] = bytes(args.get(i));
        }
        return call(request);
    }

    private static byte[][] command(final ListStep step)
    {
        return step.element() != null ? new byte[][]{RPUSH, bytes(step.key()), step.element()} :
            new byte[][]{LRANGE, bytes(step.key()), bytes("0"), bytes("-1")};
    }

    private static List<byte[]> result(final ListStep step, final Object reply)
    {
        if (step.element() != null)
        {
            if (!(reply instanceof Long))
            {
                throw new IllegalStateException("RPUSH " + step.key() + " answered " + describe(reply));
            }
            return null;
        }
        if (!(reply instanceof List<?> elements))
        {
            throw new IllegalStateException("LRANGE " + step.key() + " answered " + describe(reply));
        }
        final List<byte[]> read = new ArrayList<>(elements.size());
        for (final Object element : elements)
        {
            read.add((byte[])element);
        }
        return read;
    }

    private static void expect(final Object wanted, final Object reply, final String what)
    {
        if (!wanted.equals(reply))
        {
            throw new IllegalStateException(what + " answered " + describe(reply) + ", not " + wanted);
        }
    }

    private Object call(final byte[]... args)
    {
        final RespSocket connection = connection();
        try
        {
            final Object reply = connection.call(args);
            idle.offer(connection);
            return reply;
        }
        catch (final RuntimeException ex)
        {
            connection.close();
            throw ex;
        }
    }

    private RespSocket connection()
    {
        if (closed)
        {
            throw new IllegalStateException("the store is closed");
        }
        final RespSocket connection = idle.poll();
        if (connection != null)
        {
            return connection;
        }
        final int first = preferred.get();
        RuntimeException refused = null;
        for (int i = 0; i < endpoints.size(); i++)
        {
            final int index = (first + i) % endpoints.size();
            try
            {
                final RespSocket opened = new RespSocket(endpoints.get(index), timeoutMs);
                // stay with the node that answered until it fails too: a restarted node is found on the next round
                preferred.set(index);
                return opened;
            }
            catch (final RuntimeException ex)
            {
                refused = ex;
            }
        }
        throw refused;
    }

    public void close()
    {
        closed = true;
        RespSocket connection;
        while ((connection = idle.poll()) != null)
        {
            connection.close();
        }
    }

    private static String describe(final Object reply)
    {
        return reply instanceof byte[] bulk ? "a bulk string of " + bulk.length + " bytes" : String.valueOf(reply);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
