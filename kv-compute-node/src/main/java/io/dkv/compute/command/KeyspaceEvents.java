package io.dkv.compute.command;

import io.dkv.compute.pubsub.PubSub;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications (redis's notify-keyspace-events): after a command changed keys, a message on
 * {@code __keyspace@0__:<key>} naming the event and one on {@code __keyevent@0__:<event>} naming the key, published
 * across the pool as PUBLISH publishes. Off by default, and then they cost one read of a field per command.
 *
 * <p>Which event a command makes, and whether it made one, is read from the command and its reply (a count above
 * zero, a reply that is not nil), as redis's commands decide it inside: for the strings', lists', sets', hashes',
 * sorted sets' and the generic commands that change keys. Not sent: {@code expired} and {@code evicted} (a key's expiry
 * is found by its readers and the memory node's sweep, not by a compute node), {@code new} (a write does not learn
 * whether the key existed), streams' (no streams), and a DEL of several keys that deleted some of them (which ones is
 * not known). Inside EXEC they are sent once the transaction committed.
 */
final class KeyspaceEvents
{
    static final int KEYSPACE = 1;
    static final int KEYEVENT = 1 << 1;
    static final int GENERIC = 1 << 2;
    static final int STRING = 1 << 3;
    static final int LIST = 1 << 4;
    static final int SET = 1 << 5;
    static final int HASH = 1 << 6;
    static final int ZSET = 1 << 7;
    static final int EXPIRED = 1 << 8;
    static final int EVICTED = 1 << 9;
    static final int STREAM = 1 << 10;
    static final int KEY_MISS = 1 << 11;
    static final int MODULE = 1 << 13;
    static final int NEW = 1 << 14;
    static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    private static final byte[] KEYSPACE_PREFIX = "__keyspace@0__:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYEVENT_PREFIX = "__keyevent@0__:".getBytes(StandardCharsets.US_ASCII);

    private final PubSub pubsub;
    private volatile int flags;

    KeyspaceEvents(final PubSub pubsub)
    {
        this.pubsub = pubsub;
    }

    /** @return redis's keyspaceEventsStringToFlags: the classes named, or -1 for a letter that names none. */
    static int parse(final byte[] text)
    {
        int parsed = 0;
        for (final byte c : text)
        {
            parsed |= switch (c)
            {
                case 'A' -> ALL;
                case 'g' -> GENERIC;
                case '$' -> STRING;
                case 'l' -> LIST;
                case 's' -> SET;
                case 'h' -> HASH;
                case 'z' -> ZSET;
                case 'x' -> EXPIRED;
                case 'e' -> EVICTED;
                case 'K' -> KEYSPACE;
                case 'E' -> KEYEVENT;
                case 't' -> STREAM;
                case 'm' -> KEY_MISS;
                case 'd' -> MODULE;
                case 'n' -> NEW;
                default -> Integer.MIN_VALUE;
            };
        }
        return parsed < 0 ? -1 : parsed;
    }

    /** @return redis's keyspaceEventsFlagsToString. */
    static String format(final int flags)
    {
        final StringBuilder text = new StringBuilder();
        if ((flags & ALL) == ALL)
        {
            text.append('A');
        }
        else
        {
            final int[] classes = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};
            final String letters = "g$lshzxetdn";
            for (int i = 0; i < classes.length; i++)
            {
                if ((flags & classes[i]) != 0)
                {
                    text.append(letters.charAt(i));
                }
            }
        }
        text.append((flags & KEYSPACE) != 0 ? "K" : "").append((flags & KEYEVENT) != 0 ? "E" : "")
            .append((flags & KEY_MISS) != 0 ? "m" : "");
        return text.toString();
    }

    int flags()
    {
        return flags;
    }

    void flags(final int flags)
    {
        this.flags = flags;
    }

    /**
     * After a command ran: the events it made, published now, or once EXEC's transaction committed.
     *
     * @param reply the command's reply, from {@code from} to the buffer's writer index.
     */
    void after(final Session session, final String name, final byte[][] args, final ByteBuf reply, final int from)
    {
        final int now = flags;
        if ((now & (KEYSPACE | KEYEVENT)) == 0 || reply.writerIndex() <= from || reply.getByte(from) == '-')
        {
            return;
        }
        final long count = count(reply, from);
        final boolean nil = nil(reply, from);
        switch (name)
        {
            case "set" -> setEvents(session, now, args, nil);
            case "setex", "psetex" ->
            {
                notify(session, now, STRING, "set", args[1]);
                notify(session, now, GENERIC, "expire", args[1]);
            }
            case "getset" -> notify(session, now, STRING, "set", args[1]);
            case "setnx" -> when(count > 0, session, now, STRING, "set", args[1]);
            case "mset" -> pairs(session, now, STRING, "set", args);
            case "msetnx" ->
            {
                if (count > 0)
                {
                    pairs(session, now, STRING, "set", args);
                }
            }
            case "incr", "decr", "incrby", "decrby" -> notify(session, now, STRING, "incrby", args[1]);
            case "incrbyfloat" -> notify(session, now, STRING, "incrbyfloat", args[1]);
            case "append" -> notify(session, now, STRING, "append", args[1]);
            case "setrange" -> notify(session, now, STRING, "setrange", args[1]);
            case "getdel" -> when(!nil, session, now, GENERIC, "del", args[1]);
            case "del", "unlink" ->
            {
                if (count == args.length - 1)
                {
                    for (int i = 1; i < args.length; i++)
                    {
                        notify(session, now, GENERIC, "del", args[i]);
                    }
                }
            }
            case "expire", "pexpire", "expireat", "pexpireat" -> when(count > 0, session, now, GENERIC, "expire",
                args[1]);
            case "persist" -> when(count > 0, session, now, GENERIC, "persist", args[1]);
            case "rename", "renamenx" ->
            {
                if (count > 0 || reply.getByte(from) == '+')
                {
                    notify(session, now, GENERIC, "rename_from", args[1]);
                    notify(session, now, GENERIC, "rename_to", args[2]);
                }
            }
            case "copy" -> when(count > 0, session, now, GENERIC, "copy_to", args[2]);
            case "lpush", "lpushx", "rpush", "rpushx" -> when(count > 0, session, now, LIST,
                name.startsWith("l") ? "lpush" : "rpush", args[1]);
            case "lpop", "rpop" -> when(!nil, session, now, LIST, name, args[1]);
            case "linsert", "lrem" -> when(count > 0, session, now, LIST, name, args[1]);
            case "lset", "ltrim" -> notify(session, now, LIST, name, args[1]);
            case "lmove", "rpoplpush" ->
            {
                if (!nil)
                {
                    final boolean fromLeft = name.equals("lmove") && CommandTable.is(args[3], "left");
                    final boolean toLeft = name.equals("rpoplpush") || CommandTable.is(args[4], "left");
                    // redis pushes onto the destination before it tells of the pop
                    notify(session, now, LIST, toLeft ? "lpush" : "rpush", args[2]);
                    notify(session, now, LIST, fromLeft ? "lpop" : "rpop", args[1]);
                }
            }
            case "sadd", "srem" -> when(count > 0, session, now, SET, name, args[1]);
            case "spop" -> when(!nil, session, now, SET, "spop", args[1]);
            case "smove" ->
            {
                if (count > 0)
                {
                    notify(session, now, SET, "srem", args[1]);
                    notify(session, now, SET, "sadd", args[2]);
                }
            }
            case "hset", "hmset" -> notify(session, now, HASH, "hset", args[1]);
            case "hsetnx" -> when(count > 0, session, now, HASH, "hset", args[1]);
            case "hdel" -> when(count > 0, session, now, HASH, "hdel", args[1]);
            case "hincrby", "hincrbyfloat" -> notify(session, now, HASH, name, args[1]);
            case "zadd" -> when(count > 0 || reply.getByte(from) == '$' && !nil, session, now, ZSET,
                reply.getByte(from) == '$' ? "zincr" : "zadd", args[1]);
            case "zincrby" -> notify(session, now, ZSET, "zincr", args[1]);
            case "zrem" -> when(count > 0, session, now, ZSET, "zrem", args[1]);
            case "zremrangebyscore", "zremrangebyrank", "zremrangebylex" -> when(count > 0, session, now, ZSET, name,
                args[1]);
            case "zpopmin", "zpopmax" -> when(!nil && reply.getByte(from) == '*' && count != 0, session, now, ZSET,
                name, args[1]);
            default ->
            {
            }
        }
    }

    /**
     * An event a command sends itself, as it alone knows whether it happened (SORT's STORE: whether an empty result
     * removed a destination that existed): published as {@link #after}'s are, when the class is enabled.
     *
     * @param type  its class ({@link #LIST}, {@link #GENERIC}...).
     * @param event its name, as redis names it.
     * @param key   the key it happened to.
     */
    void sent(final Session session, final int type, final String event, final byte[] key)
    {
        final int now = flags;
        if ((now & (KEYSPACE | KEYEVENT)) != 0)
        {
            notify(session, now, type, event, key);
        }
    }

    /** SET: its event unless a condition (NX, XX) kept it from setting, and its expiry's when it set one. */
    private void setEvents(final Session session, final int now, final byte[][] args, final boolean nil)
    {
        boolean conditional = false;
        boolean get = false;
        boolean expires = false;
        for (int i = 3; i < args.length; i++)
        {
            conditional |= CommandTable.is(args[i], "nx") || CommandTable.is(args[i], "xx");
            get |= CommandTable.is(args[i], "get");
            expires |= CommandTable.is(args[i], "ex") || CommandTable.is(args[i], "px") ||
                CommandTable.is(args[i], "exat") || CommandTable.is(args[i], "pxat");
        }
        if (nil && conditional && !get)
        {
            return;
        }
        notify(session, now, STRING, "set", args[1]);
        if (expires)
        {
            notify(session, now, GENERIC, "expire", args[1]);
        }
    }

    private void pairs(final Session session, final int now, final int type, final String event, final byte[][] args)
    {
        for (int i = 1; i + 1 < args.length; i += 2)
        {
            notify(session, now, type, event, args[i]);
        }
    }

    private void when(final boolean happened, final Session session, final int now, final int type,
        final String event, final byte[] key)
    {
        if (happened)
        {
            notify(session, now, type, event, key);
        }
    }

    /** redis's notifyKeyspaceEvent: its two messages, as the classes enabled say. */
    private void notify(final Session session, final int now, final int type, final String event, final byte[] key)
    {
        if ((now & type) == 0)
        {
            return;
        }
        final byte[] eventBytes = event.getBytes(StandardCharsets.US_ASCII);
        if ((now & KEYSPACE) != 0)
        {
            publish(session, concat(KEYSPACE_PREFIX, key), eventBytes);
        }
        if ((now & KEYEVENT) != 0)
        {
            publish(session, concat(KEYEVENT_PREFIX, eventBytes), key);
        }
    }

    private void publish(final Session session, final byte[] channel, final byte[] message)
    {
        if (session.executing())
        {
            session.afterCommit(() -> pubsub.publish(false, channel, message));
        }
        else
        {
            pubsub.publish(false, channel, message);
        }
    }

    private static byte[] concat(final byte[] prefix, final byte[] rest)
    {
        final byte[] joined = new byte[prefix.length + rest.length];
        System.arraycopy(prefix, 0, joined, 0, prefix.length);
        System.arraycopy(rest, 0, joined, prefix.length, rest.length);
        return joined;
    }

    /** @return an integer reply's value (an array's length), else -1. */
    private static long count(final ByteBuf reply, final int from)
    {
        final byte type = reply.getByte(from);
        if (type != ':' && type != '*')
        {
            return -1;
        }
        long value = 0;
        boolean negative = false;
        for (int i = from + 1; i < reply.writerIndex(); i++)
        {
            final byte b = reply.getByte(i);
            if (b == '-')
            {
                negative = true;
            }
            else if (b >= '0' && b <= '9')
            {
                value = value * 10 + (b - '0');
            }
            else
            {
                break;
            }
        }
        return negative ? -value : value;
    }

    /** @return true for a nil reply of either protocol, or an empty array. */
    private static boolean nil(final ByteBuf reply, final int from)
    {
        final byte type = reply.getByte(from);
        if (type == '_')
        {
            return true;
        }
        return (type == '$' || type == '*') && reply.writerIndex() > from + 2 &&
            (reply.getByte(from + 1) == '-' || type == '*' && reply.getByte(from + 1) == '0');
    }
}
