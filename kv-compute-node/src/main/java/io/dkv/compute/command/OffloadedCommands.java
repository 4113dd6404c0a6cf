package io.dkv.compute.command;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The commands that run as a step where the connection allows one: those of hashes, sets, sorted sets and lists, and
 * those of strings and of the keyspace that the client has no carried form for (APPEND, GETDEL, SET NX, EXPIRE, TTL,
 * RENAME, MGET, the bit commands...). Each runs as a replayed transaction carried by completions
 * ({@link ReplayedCommands}), or on a {@link StoreThreads store thread} where the store has no replayed form or the
 * command goes otherwise alone than in a transaction (BITOP, whose result may be a string in pieces); the event loop
 * serves its other connections while a step travels. A step of one key holds back only the connection's later
 * requests of that key; one of several keys holds back everything after it. What a command does after its reply
 * (keyspace events, waking a blocked client) still runs on the loop, from {@link CommandTable#finish}; the *STORE
 * commands' events, which they send from inside, are deferred to the commit of the run that made the reply.
 *
 * <p>SORT reads keys no argument names (its BY and GET patterns): as a step of several keys it holds back everything
 * after it, so the connection sees it in order all the same. So do the commands that walk the keyspace (SCAN, KEYS,
 * DBSIZE, RANDOMKEY, FLUSHALL, FLUSHDB), on a store thread, and OBJECT's and MEMORY USAGE's reads of their key.
 * Left on the loop: GET, SET, the counters, MSET, MSETNX, DEL and UNLINK (carried by completions of their own), the
 * blocking commands (a waiter is the loop's), a request with a long argument the decoder staged, and the commands of
 * no key that read nothing from the store.
 */
public final class OffloadedCommands
{
    /** By name: true when the command's one key is its second argument, false when it names several keys. */
    private static final Map<String, Boolean> ONE_KEY = new HashMap<>();
    /** The one-key names, lower case, by their first letter's index in a to z: a lookup that allocates nothing. */
    private static final byte[][][] ONE_KEY_BY_LETTER = new byte[26][][];
    /**
     * The commands that walk the whole keyspace: a scan of every memory node's index (half a second a million keys for
     * KEYS or DBSIZE), which no transaction holds, so they run on a store thread, and keep an EXEC on the loop.
     */
    private static final Set<String> WALKS = Set.of("scan", "keys", "dbsize", "randomkey", "flushall", "flushdb");
    /** SET's options that make it a read and a write (the plain SET, with or without an expiry, is carried). */
    private static final String[] SET_CONDITIONS = {"nx", "xx", "get", "keepttl", "ifeq"};
    private static final byte[] SET = {'s', 'e', 't'};

    static
    {
        oneKey("hset", "hmset", "hsetnx", "hget", "hmget", "hdel", "hlen", "hstrlen", "hexists", "hkeys", "hvals",
            "hgetall", "hincrby", "hincrbyfloat", "hrandfield", "hscan");
        oneKey("sadd", "srem", "smembers", "sismember", "smismember", "scard", "spop", "srandmember", "sscan");
        oneKey("zadd", "zincrby", "zrem", "zcard", "zscore", "zmscore", "zrank", "zrevrank", "zpopmin", "zpopmax",
            "zrandmember", "zscan", "zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore", "zrangebylex",
            "zrevrangebylex", "zcount", "zlexcount", "zremrangebyrank", "zremrangebyscore", "zremrangebylex");
        oneKey("lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lrange", "lindex", "lset", "linsert",
            "lrem", "ltrim", "lpos");
        oneKey("getset", "getdel", "getex", "setnx", "append", "setrange", "getrange", "substr", "strlen",
            "incrbyfloat", "setbit", "getbit", "bitcount", "bitpos", "bitfield", "bitfield_ro");
        oneKey("type", "expire", "pexpire", "expireat", "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime",
            "persist");
        for (final String name : new String[] {"smove", "sinter", "sunion", "sdiff", "sintercard", "sinterstore",
            "sunionstore", "sdiffstore", "zmpop", "zunion",
            "zinter", "zdiff", "zintercard", "zrangestore", "zunionstore", "zinterstore", "zdiffstore", "lmove",
            "rpoplpush", "lmpop", "sort", "sort_ro", "mget", "exists", "touch", "rename", "renamenx", "copy", "lcs",
            "bitop", "scan", "keys", "dbsize", "randomkey", "flushall", "flushdb", "object|encoding",
            "object|refcount", "object|freq", "object|idletime", "memory|usage"})
        {
            ONE_KEY.put(name, Boolean.FALSE);
        }
        final Map<Integer, java.util.List<byte[]>> byLetter = new HashMap<>();
        ONE_KEY.forEach((name, one) ->
        {
            if (one)
            {
                byLetter.computeIfAbsent(name.charAt(0) - 'a', letter -> new java.util.ArrayList<>())
                    .add(name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
        });
        byLetter.forEach((letter, names) -> ONE_KEY_BY_LETTER[letter] = names.toArray(new byte[0][]));
    }

    private OffloadedCommands()
    {
    }

    private static void oneKey(final String... names)
    {
        for (final String name : names)
        {
            ONE_KEY.put(name, Boolean.TRUE);
        }
    }

    /**
     * @return true when the request of the command of this (lower-case) name runs as a step where it may: a command
     * here, or SET with a condition.
     */
    static boolean offloaded(final String name, final byte[][] args)
    {
        return "set".equals(name) ? conditional(args) : ONE_KEY.containsKey(name);
    }

    /** @return false for a command that runs on a store thread, never replayed. */
    static boolean replayable(final String name)
    {
        return !"bitop".equals(name) && !WALKS.contains(name);
    }

    /** @return true for a command that walks the whole keyspace ({@link #WALKS}), which EXEC cannot replay. */
    static boolean walksKeyspace(final String name)
    {
        return WALKS.contains(name);
    }

    /**
     * @return the key a step of this command holds ({@code args[1]}: later requests on it wait for the step), or null
     * for a command of several keys, which every later request waits for.
     */
    static byte[] stepKey(final String name, final byte[][] args)
    {
        return "set".equals(name) || ONE_KEY.get(name) ? args[1] : null;
    }

    /** @return true for a SET with an option that reads the key (NX, XX, GET, KEEPTTL, IFEQ). */
    private static boolean conditional(final byte[][] args)
    {
        for (int i = 3; i < args.length; i++)
        {
            for (final String option : SET_CONDITIONS)
            {
                if (CommandTable.is(args[i], option))
                {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @return true when {@code args} is a request of a one-key command here, with its key: the connection may run it
     * beside steps in flight on other keys.
     */
    public static boolean oneKey(final byte[][] args)
    {
        if (args.length < 2 || args[0].length == 0)
        {
            return false;
        }
        if (sameName(args[0], SET))
        {
            return conditional(args);
        }
        final int letter = (args[0][0] | 0x20) - 'a';
        if (letter < 0 || letter >= ONE_KEY_BY_LETTER.length || ONE_KEY_BY_LETTER[letter] == null)
        {
            return false;
        }
        for (final byte[] name : ONE_KEY_BY_LETTER[letter])
        {
            if (sameName(args[0], name))
            {
                return true;
            }
        }
        return false;
    }

    /** @return true when {@code arg} is {@code lowerCaseName} in any case (ASCII), allocating nothing. */
    static boolean sameName(final byte[] arg, final byte[] lowerCaseName)
    {
        if (arg.length != lowerCaseName.length)
        {
            return false;
        }
        for (int i = 0; i < arg.length; i++)
        {
            final int b = arg[i];
            if ((b >= 'A' && b <= 'Z' ? b | 0x20 : b) != lowerCaseName[i])
            {
                return false;
            }
        }
        return true;
    }
}
