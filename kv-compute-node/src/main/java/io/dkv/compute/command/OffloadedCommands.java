package io.dkv.compute.command;

import java.util.HashMap;
import java.util.Map;

/**
 * The commands of hashes, sets, sorted sets and lists that run as a step where the connection allows one: those of one
 * key as replayed transactions carried by completions ({@link ReplayedCommands}), the others on a
 * {@link StoreThreads store thread} (their work is a transaction or a read of several blocks); the event loop serves
 * its other connections while a step travels. What a command does after its reply
 * (keyspace events, waking a blocked client) still runs on the loop, from {@link CommandTable#finish}.
 *
 * <p>The *STORE commands send their keyspace events from inside, on the store thread: a message's delivery to local
 * subscribers and its calls to peers are safe from any thread, as PUBLISH's own are from every loop. SORT reads keys
 * no argument names (its BY and GET patterns): as a step of several keys it holds back everything after it, so the
 * connection sees it in order all the same. Left on the loop: the blocking commands (a waiter is the loop's) and every
 * command of no or other types.
 */
public final class OffloadedCommands
{
    /** By name: true when the command's one key is its second argument, false when it names several keys. */
    private static final Map<String, Boolean> ONE_KEY = new HashMap<>();
    /** The one-key names, lower case, by their first letter's index in a to z: a lookup that allocates nothing. */
    private static final byte[][][] ONE_KEY_BY_LETTER = new byte[26][][];

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
        for (final String name : new String[] {"smove", "sinter", "sunion", "sdiff", "sintercard", "sinterstore",
            "sunionstore", "sdiffstore", "zmpop", "zunion",
            "zinter", "zdiff", "zintercard", "zrangestore", "zunionstore", "zinterstore", "zdiffstore", "lmove",
            "rpoplpush", "lmpop", "sort", "sort_ro"})
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

    /** @return true when the command of this (lower-case) name runs on a store thread where it may. */
    static boolean offloaded(final String name)
    {
        return ONE_KEY.containsKey(name);
    }

    /**
     * @return true when the command runs as a replayed transaction carried by completions where the store can
     * ({@link ReplayedCommands}): the commands of one key, whose only effect is on the store. The *STORE commands
     * (which send keyspace events from inside), SORT (which reads keys no argument names) and the other commands of
     * several keys stay on store threads.
     */
    static boolean replayable(final String name)
    {
        return ONE_KEY.getOrDefault(name, Boolean.FALSE);
    }

    /**
     * @return the key a step of this command holds ({@code args[1]}: later requests on it wait for the step), or null
     * for a command of several keys, which every later request waits for.
     */
    static byte[] stepKey(final String name, final byte[][] args)
    {
        return ONE_KEY.get(name) ? args[1] : null;
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

    private static boolean sameName(final byte[] arg, final byte[] lowerCaseName)
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
