package io.dkv.client;

import io.dkv.client.layout.KvBlockLayout;
import io.dkv.raas.Raas;

import java.util.ArrayList;
import java.util.List;

/**
 * The KV store's client: keys of 1 B to 64 KiB, values of 0 B to 1 MiB, spread over memory nodes by
 * rendezvous hashing and read and written with one-sided requests through RaaS. Operations on one
 * key are linearizable. Thread-safe: each thread has its own logical connections, buffers and heap
 * chunks.
 */
public final class KvClient implements AutoCloseable
{
    private final Raas raas;
    private final KvClientContext context;
    private final MemoryNodeView[] nodes;
    private final List<KvSession> sessions = new ArrayList<>();
    private final ThreadLocal<KvSession> session;
    private volatile boolean closed;

    private KvClient(final Raas raas, final KvClientContext context)
    {
        this.raas = raas;
        this.context = context;
        final long[] ids = context.memoryNodes();
        this.nodes = new MemoryNodeView[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            nodes[i] = MemoryNodeView.read(raas, ids[i]);
        }
        this.session = ThreadLocal.withInitial(this::newSession);
    }

    /**
     * Reach the memory nodes the context names through {@code raas} (which stays the caller's).
     *
     * @throws KvException when a node publishes no index the client can read.
     */
    public static KvClient connect(final Raas raas, final KvClientContext context)
    {
        return new KvClient(raas, context.conclude());
    }

    /** @return the key's value, or null when it has none. */
    public byte[] get(final byte[] key)
    {
        checkKey(key);
        return session().get(key);
    }

    /** Set the key's value, whatever it held. */
    public void put(final byte[] key, final byte[] value)
    {
        checkKey(key);
        checkValue(value);
        session().write(key, value, null, true);
    }

    /** @return true when the key had a value (it has none now). */
    public boolean delete(final byte[] key)
    {
        checkKey(key);
        return session().delete(key);
    }

    /**
     * Set the key's value only if it holds {@code expected} now.
     *
     * @param expected the value it must hold, or null: it must have none.
     * @return true when the value was set.
     */
    public boolean compareAndSet(final byte[] key, final byte[] expected, final byte[] value)
    {
        checkKey(key);
        checkValue(value);
        if (expected != null)
        {
            checkValue(expected);
        }
        return session().write(key, value, expected, false);
    }

    private KvSession session()
    {
        if (closed)
        {
            throw new KvException("the client is closed");
        }
        return session.get();
    }

    private KvSession newSession()
    {
        final KvSession created = new KvSession(raas, context, nodes);
        synchronized (sessions)
        {
            sessions.add(created);
        }
        return created;
    }

    private static void checkKey(final byte[] key)
    {
        if (key == null || key.length == 0 || key.length > KvBlockLayout.MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a key is 1 to " + KvBlockLayout.MAX_KEY_LENGTH + " bytes; this one is " +
                (key == null ? "null" : key.length + " bytes"));
        }
    }

    private static void checkValue(final byte[] value)
    {
        if (value == null || value.length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("a value is 0 to " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes; this one is " +
                (value == null ? "null" : value.length + " bytes"));
        }
    }

    /** Close every thread's connections; the Raas handle stays open. */
    public void close()
    {
        closed = true;
        synchronized (sessions)
        {
            sessions.forEach(KvSession::close);
            sessions.clear();
        }
    }
}
