package io.dkv.client;

/**
 * How many races one read-modify-write may lose: a CAS that lost to another writer (or a read that saw the index move
 * under it) reads again, up to the context's {@code maxRetries} times, and then the operation fails, naming the key
 * and the node. Every read-modify-write of the client counts its races with one of these, as redis funnels SET, SETNX
 * and SETEX through one generic command; each loop has its own, as loops nest (a chain's write forces a joiner).
 *
 * <pre>{@code
 * for (races.start(); races.another(); )
 * {
 *     read; decide; if (cas(...) == expected) return true;
 * }
 * throw races.exhausted("put", nodeId, key);
 * }</pre>
 */
public final class RaceRetries
{
    private final int limit;
    private int used;

    public RaceRetries(final int limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("a read-modify-write needs at least one attempt, not " + limit);
        }
        this.limit = limit;
    }

    /** A read-modify-write begins: no attempt used yet. */
    public void start()
    {
        used = 0;
    }

    /** @return true when one more attempt may be made, which is then counted. */
    public boolean another()
    {
        return used++ < limit;
    }

    /** @return true while the attempts counted with {@link #lost()} leave one more. */
    public boolean left()
    {
        return used < limit;
    }

    /** Count a race lost where only those count (waiting for another writer to finish does not). */
    public void lost()
    {
        used++;
    }

    /** @return the failure of an operation that lost every race it was allowed. */
    public KvException exhausted(final String operation, final long nodeId, final byte[] key)
    {
        return new KvException(operation + " of key " + KvErrors.describe(key) + " on memory node " + nodeId +
            " lost " + limit + " races in a row");
    }

    /** @return the failure of an operation on a key, wherever its copies are, that lost every race it was allowed. */
    public KvException exhausted(final String operation, final byte[] key)
    {
        return KvErrors.racesLost(operation, key, limit);
    }
}
