package io.dkv.compute.command;

import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.isCString;

/**
 * COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS: the keys of a request to a command this node serves, as redis 7.0.15's
 * getKeysSubcommandImpl finds them, with the flags of the key spec that found each. The key specs are redis's
 * (src/commands/*.json), for the served commands that have keys; a command not in the table has none, and one redis
 * has that this node does not serve is, as for COMMAND INFO, no command ("Invalid command specified"). As in redis,
 * a command's key specs are used unless one has variable flags (SET, BITFIELD), and its own key-finding function
 * (getkeys_proc) where a spec cannot say (SORT's STORE and BY/GET, a numkeys that is no count or counts past the
 * arguments); those functions' quirks are kept: a numkeys read with atoi, the keys they find flagged with nothing,
 * SORT's keys the key sorted and STORE's destination, never what BY or GET make.
 */
final class CommandKeys
{
    static final int RO = 1;
    static final int RW = 1 << 1;
    static final int OW = 1 << 2;
    static final int RM = 1 << 3;
    static final int ACCESS = 1 << 4;
    static final int UPDATE = 1 << 5;
    static final int INSERT = 1 << 6;
    static final int DELETE = 1 << 7;
    static final int VARIABLE_FLAGS = 1 << 10;
    /** addReplyFlagsForKeyArgs's names, by bit. */
    private static final String[] FLAG_NAMES = {"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
        "not_key", "incomplete", "variable_flags"};

    /**
     * A key spec: keys begin at an index ({@code begin}), or where nothing tells ({@code begin} -1: redis's
     * "unknown", which always defers to the command's function); they run to {@code lastKey} (from the first; from
     * the end when negative) every {@code step}, or ({@code keyNum}) number what the argument at the beginning says,
     * from the one after it.
     */
    private record KeySpec(int flags, int begin, int lastKey, int step, boolean keyNum)
    {
    }

    /** A command's own key-finding function, redis's getkeys_proc: the keys' positions and flags, or none. */
    @FunctionalInterface
    private interface Finder
    {
        List<int[]> find(byte[][] argv);
    }

    /** A command's keys: its specs, its function or null, and whether a request may name no key (EVAL's 0). */
    private record Keys(List<KeySpec> specs, Finder finder, boolean noMandatoryKeys)
    {
    }

    private static final Map<String, Keys> KEYS = new HashMap<>();

    static
    {
        keys(List.of(range(RO | ACCESS, 1, 0, 1)), "bitcount", "bitfield_ro", "bitpos", "expiretime", "get",
            "getbit", "getrange", "hget", "hgetall", "hkeys", "hmget", "hrandfield", "hscan", "hvals", "lindex", "lpos",
            "lrange", "pexpiretime", "pttl", "smembers", "smismember", "srandmember", "sscan", "substr", "ttl",
            "zcount", "zlexcount", "zmscore", "zrandmember", "zrange", "zrangebylex", "zrangebyscore", "zrank",
            "zrevrange", "zrevrangebylex", "zrevrangebyscore", "zrevrank", "zscan", "zscore");
        keys(List.of(range(RO, 1, 0, 1)), "hexists", "hlen", "hstrlen", "llen", "scard", "sismember", "strlen",
            "type", "zcard");
        keys(List.of(range(RO, 2, 0, 1)), "memory|usage", "object|encoding", "object|freq", "object|idletime",
            "object|refcount");
        keys(List.of(range(RO, 1, -1, 1)), "exists", "touch", "watch");
        keys(List.of(range(RO | ACCESS, 1, -1, 1)), "mget", "sdiff", "sinter", "sunion");
        keys(List.of(range(RO | ACCESS, 1, 1, 1)), "lcs");
        keys(List.of(range(RW | INSERT, 1, 0, 1)), "append", "hsetnx", "linsert", "lpush", "lpushx", "rpush",
            "rpushx", "sadd");
        keys(List.of(range(RW | ACCESS | UPDATE, 1, 0, 1)), "decr", "decrby", "getex", "getset", "hincrby",
            "hincrbyfloat", "incr", "incrby", "incrbyfloat", "setbit", "zincrby");
        keys(List.of(range(RW | UPDATE, 1, 0, 1)), "expire", "expireat", "hmset", "hset", "lset", "persist",
            "pexpire", "pexpireat", "setrange", "zadd");
        keys(List.of(range(RW | DELETE, 1, 0, 1)), "hdel", "lrem", "ltrim", "srem", "zrem", "zremrangebylex",
            "zremrangebyrank", "zremrangebyscore");
        keys(List.of(range(RW | ACCESS | DELETE, 1, 0, 1)), "getdel", "lpop", "rpop", "spop", "zpopmax", "zpopmin");
        // the blocking pops' last argument is the timeout
        keys(List.of(range(RW | ACCESS | DELETE, 1, -2, 1)), "blpop", "brpop", "bzpopmax", "bzpopmin");
        keys(List.of(range(RM | DELETE, 1, -1, 1)), "del", "unlink");
        keys(List.of(range(OW | UPDATE, 1, 0, 1)), "psetex", "setex");
        keys(List.of(range(OW | INSERT, 1, 0, 1)), "setnx");
        keys(List.of(range(OW | UPDATE, 1, -1, 2)), "mset");
        keys(List.of(range(OW | INSERT, 1, -1, 2)), "msetnx");
        keys(List.of(range(RW | ACCESS | DELETE, 1, 0, 1), range(RW | INSERT, 2, 0, 1)), "blmove", "brpoplpush",
            "lmove", "rpoplpush", "smove");
        keys(List.of(range(RO | ACCESS, 1, 0, 1), range(OW | UPDATE, 2, 0, 1)), "copy");
        keys(List.of(range(RW | ACCESS | DELETE, 1, 0, 1), range(OW | UPDATE, 2, 0, 1)), "rename");
        keys(List.of(range(RW | ACCESS | DELETE, 1, 0, 1), range(OW | INSERT, 2, 0, 1)), "renamenx");
        keys(List.of(range(OW | UPDATE, 2, 0, 1), range(RO | ACCESS, 3, -1, 1)), "bitop");
        keys(List.of(range(OW | UPDATE, 1, 0, 1), range(RO | ACCESS, 2, -1, 1)), "sdiffstore", "sunionstore");
        keys(List.of(range(RW | UPDATE, 1, 0, 1), range(RO | ACCESS, 2, -1, 1)), "sinterstore");
        keys(List.of(range(OW | UPDATE, 1, 0, 1), range(RO | ACCESS, 2, 0, 1)), "zrangestore");
        numKeys(RW | ACCESS | UPDATE, 2, true, "eval", "evalsha", "fcall");
        numKeys(RO | ACCESS, 2, true, "eval_ro", "evalsha_ro", "fcall_ro");
        numKeys(RW | ACCESS | DELETE, 2, false, "blmpop", "bzmpop");
        numKeys(RW | ACCESS | DELETE, 1, false, "lmpop", "zmpop");
        numKeys(RO | ACCESS, 1, false, "sintercard", "zdiff", "zinter", "zintercard", "zunion");
        final Keys stores = new Keys(List.of(range(OW | UPDATE, 1, 0, 1), new KeySpec(RO | ACCESS, 2, 0, 1, true)),
            argv -> counted(1, 2, 3, argv), false);
        for (final String name : List.of("zdiffstore", "zinterstore", "zunionstore"))
        {
            KEYS.put(name, stores);
        }
        KEYS.put("set", new Keys(List.of(range(RW | ACCESS | UPDATE | VARIABLE_FLAGS, 1, 0, 1)),
            CommandKeys::setKeys, false));
        KEYS.put("bitfield", new Keys(List.of(range(RW | UPDATE | ACCESS | VARIABLE_FLAGS, 1, 0, 1)),
            CommandKeys::bitfieldKeys, false));
        KEYS.put("sort", new Keys(List.of(range(RO | ACCESS, 1, 0, 1), unknown(RO | ACCESS), unknown(OW | UPDATE)),
            CommandKeys::sortKeys, false));
        KEYS.put("sort_ro", new Keys(List.of(range(RO | ACCESS, 1, 0, 1), unknown(RO | ACCESS)),
            argv -> List.of(new int[]{1, RO | ACCESS}), false));
    }

    private final CommandTable table;

    /** @param table the served commands, whose requests' keys are asked for. */
    CommandKeys(final CommandTable table)
    {
        this.table = table;
    }

    /**
     * COMMAND GETKEYS|GETKEYSANDFLAGS command [arg ...]: the command looked up as redis does (a container's
     * subcommand when one is named), its arity checked, then its keys.
     */
    void getKeys(final Session session, final byte[][] args, final ByteBuf out, final boolean withFlags)
    {
        final byte[][] argv = Arrays.copyOfRange(args, 2, args.length);
        final CommandSpec spec = table.lookup(argv);
        if (spec == null)
        {
            RespReplies.error(out, "ERR Invalid command specified");
            return;
        }
        final Keys keys = KEYS.get(spec.name());
        if (keys == null)
        {
            RespReplies.error(out, "ERR The command has no key arguments");
            return;
        }
        if (!spec.arityFits(argv.length))
        {
            RespReplies.error(out, "ERR Invalid number of arguments specified for command");
            return;
        }
        final List<int[]> found = find(keys, argv, spec.arity());
        if (found.isEmpty() && !keys.noMandatoryKeys())
        {
            RespReplies.error(out, "ERR Invalid arguments specified for command");
            return;
        }
        RespReplies.arrayHeader(out, found.size());
        for (final int[] key : found)
        {
            if (withFlags)
            {
                RespReplies.arrayHeader(out, 2);
                RespReplies.bulk(out, argv[key[0]]);
                flags(key[1], session.protocol(), out);
            }
            else
            {
                RespReplies.bulk(out, argv[key[0]]);
            }
        }
    }

    /**
     * @param name the command's lower-case name.
     * @param args the request, its name first.
     * @return the keys the request names, as COMMAND GETKEYS finds them (SORT's BY and GET keys not among them); none
     * for a command of no keys or a request whose arguments say none.
     */
    static List<byte[]> keysOf(final String name, final byte[][] args)
    {
        final Keys keys = KEYS.get(name);
        if (keys == null)
        {
            return List.of();
        }
        final List<int[]> found = find(keys, args, -1);
        final List<byte[]> named = new ArrayList<>(found.size());
        for (final int[] key : found)
        {
            if (key[0] < args.length)
            {
                named.add(args[key[0]]);
            }
        }
        return named;
    }

    /** getKeysFromCommandWithSpecs: the specs unless one has variable flags or they fail, then the function. */
    private static List<int[]> find(final Keys keys, final byte[][] argv, final int arity)
    {
        final boolean variableFlags = keys.specs().stream().anyMatch(spec -> (spec.flags() & VARIABLE_FLAGS) != 0);
        if (!variableFlags)
        {
            final List<int[]> found = bySpecs(keys.specs(), argv, arity);
            if (found != null)
            {
                return found;
            }
        }
        return keys.finder() == null ? List.of() : keys.finder().find(argv);
    }

    /** getKeysUsingKeySpecs: each spec's keys in turn, or null when one cannot say (an invalid spec). */
    private static List<int[]> bySpecs(final List<KeySpec> specs, final byte[][] argv, final int arity)
    {
        final int argc = argv.length;
        final List<int[]> found = new ArrayList<>();
        for (final KeySpec spec : specs)
        {
            if (spec.begin() < 0)
            {
                return null;
            }
            int first = spec.begin();
            final int last;
            if (!spec.keyNum())
            {
                last = spec.lastKey() >= 0 ? first + spec.lastKey() : argc + spec.lastKey();
            }
            else
            {
                if (first >= argc || !RespNumbers.isLong(argv[first]) || RespNumbers.parseLong(argv[first]) < 0)
                {
                    return null;
                }
                // redis's (int) of the count, truncation and all
                final int count = (int)RespNumbers.parseLong(argv[first]);
                first += 1;
                last = first + count - 1;
            }
            if (last >= argc || last < first || first >= argc)
            {
                return null;
            }
            for (int i = first; i <= last; i += spec.step())
            {
                if (i >= argc || i < first)
                {
                    // past the arguments: a command of variable arity answers its own error later
                    if (arity < 0)
                    {
                        continue;
                    }
                    return null;
                }
                found.add(new int[]{i, spec.flags()});
            }
        }
        return found;
    }

    /**
     * genericGetKeys: {@code atoi} of the argument at {@code countAt} keys from {@code firstAt}, then the destination
     * at {@code storeAt} (0: none), none when the count is under 1 or past the arguments; no flags.
     */
    private static List<int[]> counted(final int storeAt, final int countAt, final int firstAt, final byte[][] argv)
    {
        final int count = atoi(argv[countAt]);
        if (count < 1 || count > argv.length - firstAt)
        {
            return List.of();
        }
        final List<int[]> found = new ArrayList<>(count + 1);
        for (int i = 0; i < count; i++)
        {
            found.add(new int[]{firstAt + i, 0});
        }
        if (storeAt > 0)
        {
            found.add(new int[]{storeAt, 0});
        }
        return found;
    }

    /** sortGetKeys: the key sorted, and the last STORE's destination, skipping LIMIT's, GET's and BY's arguments. */
    private static List<int[]> sortKeys(final byte[][] argv)
    {
        final List<int[]> found = new ArrayList<>(List.of(new int[]{1, RO | ACCESS}));
        int[] store = null;
        for (int i = 2; i < argv.length; i++)
        {
            if (isCString(argv[i], "limit"))
            {
                i += 2;
            }
            else if (isCString(argv[i], "get") || isCString(argv[i], "by"))
            {
                i += 1;
            }
            else if (isCString(argv[i], "store") && i + 1 < argv.length)
            {
                store = new int[]{i + 1, OW | UPDATE};
            }
        }
        if (store != null)
        {
            found.add(store);
        }
        return found;
    }

    /** setGetKeys: the key, read too (RW, access) when a GET (as C reads it) follows the value. */
    private static List<int[]> setKeys(final byte[][] argv)
    {
        for (int i = 3; i < argv.length; i++)
        {
            if (isCString(argv[i], "get"))
            {
                return List.of(new int[]{1, RW | ACCESS | UPDATE});
            }
        }
        return List.of(new int[]{1, OW | UPDATE});
    }

    /** bitfieldGetKeys: read-only while every operation is a GET (or OVERFLOW), else read and written. */
    private static List<int[]> bitfieldKeys(final byte[][] argv)
    {
        boolean readOnly = true;
        for (int i = 2; i < argv.length; i++)
        {
            final int left = argv.length - i - 1;
            if (isCString(argv[i], "get") && left >= 2)
            {
                i += 2;
            }
            else if ((isCString(argv[i], "set") || isCString(argv[i], "incrby")) && left >= 3)
            {
                readOnly = false;
                break;
            }
            else if (isCString(argv[i], "overflow") && left >= 1)
            {
                i += 1;
            }
            else
            {
                readOnly = false;
                break;
            }
        }
        return List.of(new int[]{1, readOnly ? RO | ACCESS : RW | ACCESS | UPDATE});
    }

    /** C's atoi as glibc makes it: strtol's number (white space, a sign, digits; clamped to a long) cut to an int. */
    static int atoi(final byte[] text)
    {
        int i = 0;
        while (i < text.length && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r')))
        {
            i++;
        }
        final boolean negative = i < text.length && text[i] == '-';
        if (i < text.length && (text[i] == '-' || text[i] == '+'))
        {
            i++;
        }
        long value = 0;
        boolean clamped = false;
        for (; i < text.length && text[i] >= '0' && text[i] <= '9'; i++)
        {
            final int digit = text[i] - '0';
            if (!clamped && value > (Long.MAX_VALUE - digit) / 10)
            {
                clamped = true;
            }
            value = clamped ? 0 : value * 10 + digit;
        }
        final long number = clamped ? (negative ? Long.MIN_VALUE : Long.MAX_VALUE) : (negative ? -value : value);
        return (int)number;
    }

    /** A key's flags as a set of simple strings, in redis's order. */
    private static void flags(final int flags, final int protocol, final ByteBuf out)
    {
        RespReplies.setHeader(out, Integer.bitCount(flags), protocol);
        for (int bit = 0; bit < FLAG_NAMES.length; bit++)
        {
            if ((flags & (1 << bit)) != 0)
            {
                RespReplies.simple(out, FLAG_NAMES[bit]);
            }
        }
    }

    private static KeySpec range(final int flags, final int begin, final int lastKey, final int step)
    {
        return new KeySpec(flags, begin, lastKey, step, false);
    }

    private static KeySpec unknown(final int flags)
    {
        return new KeySpec(flags, -1, 0, 1, false);
    }

    private static void keys(final List<KeySpec> specs, final String... names)
    {
        final Keys keys = new Keys(specs, null, false);
        for (final String name : names)
        {
            KEYS.put(name, keys);
        }
    }

    /** Keys counted by the argument at {@code countAt}, which follow it; the function reads the count with atoi. */
    private static void numKeys(final int flags, final int countAt, final boolean noMandatoryKeys,
        final String... names)
    {
        final Keys keys = new Keys(List.of(new KeySpec(flags, countAt, 0, 1, true)),
            argv -> counted(0, countAt, countAt + 1, argv), noMandatoryKeys);
        for (final String name : names)
        {
            KEYS.put(name, keys);
        }
    }
}
