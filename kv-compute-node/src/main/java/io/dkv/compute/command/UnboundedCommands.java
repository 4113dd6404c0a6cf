package io.dkv.compute.command;

import java.nio.charset.StandardCharsets;

/**
 * The requests whose work grows with the data rather than with their arguments: a walk of the keyspace (KEYS, DBSIZE,
 * FLUSHALL), a whole collection (SMEMBERS, HGETALL, SINTER, SORT...) or a range without a bound (LRANGE 0 -1, ZRANGE
 * BYSCORE without LIMIT). Where requests run on their event loop ({@code asyncCommands} off, as on the shared-memory
 * provider, whose reads are copies made by the caller), these still run as steps on a store thread: one HGETALL of
 * 100,000 fields or KEYS of 20,000 keys held its loop, and every connection on it, 100-300 ms. A bounded request
 * (LRANGE 0 99, ZRANGE BYSCORE ... LIMIT 0 10) stays on the loop, which a thread hop would cost more than it saves.
 * Allocates nothing: every request that is not a GET, SET or INCR asks.
 */
public final class UnboundedCommands
{
    /** Elements a range may name at most and still run on the loop. */
    public static final int BOUND = 1024;

    private static final long NOT_INTEGER = Long.MIN_VALUE;
    private static final String[] ALWAYS = {"keys", "dbsize", "flushall", "flushdb", "smembers", "hgetall", "hkeys",
        "hvals", "sinter", "sunion", "sdiff", "sintercard", "sinterstore", "sunionstore", "sdiffstore", "zunion",
        "zinter", "zdiff", "zintercard", "zunionstore", "zinterstore", "zdiffstore", "sort", "sort_ro", "lpos", "lrem",
        "zremrangebyscore", "zremrangebyrank", "zremrangebylex", "copy"};
    private static final String[] BY_INDEX = {"lrange", "zrevrange"};
    private static final String[] BY_LIMIT = {"zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex"};
    private static final byte[] ZRANGE = bytes("zrange");
    private static final byte[] ZRANGESTORE = bytes("zrangestore");
    private static final byte[] LIMIT = bytes("limit");
    private static final byte[] BYSCORE = bytes("byscore");
    private static final byte[] BYLEX = bytes("bylex");
    private static final byte[][][] ALWAYS_BY_LETTER = byLetter(ALWAYS);
    private static final byte[][][] BY_INDEX_BY_LETTER = byLetter(BY_INDEX);
    private static final byte[][][] BY_LIMIT_BY_LETTER = byLetter(BY_LIMIT);

    private UnboundedCommands()
    {
    }

    /** @return true when the request's work may grow with the data: it runs as a step where it may. */
    public static boolean unbounded(final byte[][] args)
    {
        if (args.length < 1 || args[0].length == 0)
        {
            return false;
        }
        final byte[] name = args[0];
        if (among(name, ALWAYS_BY_LETTER))
        {
            return true;
        }
        if (among(name, BY_INDEX_BY_LETTER))
        {
            return args.length >= 4 && !boundedIndexes(args[2], args[3]);
        }
        if (among(name, BY_LIMIT_BY_LETTER))
        {
            return !boundedLimit(args, 4);
        }
        final boolean store = OffloadedCommands.sameName(name, ZRANGESTORE);
        if (store || OffloadedCommands.sameName(name, ZRANGE))
        {
            final int from = store ? 3 : 2;
            if (args.length < from + 2)
            {
                return false;
            }
            for (int i = from + 2; i < args.length; i++)
            {
                if (OffloadedCommands.sameName(args[i], BYSCORE) || OffloadedCommands.sameName(args[i], BYLEX))
                {
                    return !boundedLimit(args, from + 2);
                }
            }
            return !boundedIndexes(args[from], args[from + 1]);
        }
        return false;
    }

    /** @return true when start and stop are integers of one sign naming fewer than {@link #BOUND} elements. */
    static boolean boundedIndexes(final byte[] start, final byte[] stop)
    {
        final long from = integer(start);
        final long to = integer(stop);
        if (from == NOT_INTEGER || to == NOT_INTEGER)
        {
            // an error: answered at once wherever it runs
            return true;
        }
        return (from >= 0) == (to >= 0) && to - from < BOUND;
    }

    /** @return true when a LIMIT at or after {@code from} gives a count of 0 to {@link #BOUND} - 1. */
    private static boolean boundedLimit(final byte[][] args, final int from)
    {
        for (int i = from; i + 2 < args.length; i++)
        {
            if (OffloadedCommands.sameName(args[i], LIMIT))
            {
                final long count = integer(args[i + 2]);
                return count >= 0 && count < BOUND;
            }
        }
        return false;
    }

    private static long integer(final byte[] text)
    {
        if (text.length == 0 || text.length > 18)
        {
            return NOT_INTEGER;
        }
        final boolean negative = text[0] == '-';
        if (negative && text.length == 1)
        {
            return NOT_INTEGER;
        }
        long value = 0;
        for (int i = negative ? 1 : 0; i < text.length; i++)
        {
            final int digit = text[i] - '0';
            if (digit < 0 || digit > 9)
            {
                return NOT_INTEGER;
            }
            value = value * 10 + digit;
        }
        return negative ? -value : value;
    }

    private static boolean among(final byte[] name, final byte[][][] byLetter)
    {
        final int letter = (name[0] | 0x20) - 'a';
        if (letter < 0 || letter >= byLetter.length || byLetter[letter] == null)
        {
            return false;
        }
        for (final byte[] candidate : byLetter[letter])
        {
            if (OffloadedCommands.sameName(name, candidate))
            {
                return true;
            }
        }
        return false;
    }

    private static byte[][][] byLetter(final String[] names)
    {
        final byte[][][] table = new byte[26][][];
        for (final String name : names)
        {
            final int letter = name.charAt(0) - 'a';
            final byte[][] before = table[letter] == null ? new byte[0][] : table[letter];
            final byte[][] after = java.util.Arrays.copyOf(before, before.length + 1);
            after[before.length] = bytes(name);
            table[letter] = after;
        }
        return table;
    }

    private static byte[] bytes(final String name)
    {
        return name.getBytes(StandardCharsets.US_ASCII);
    }
}
