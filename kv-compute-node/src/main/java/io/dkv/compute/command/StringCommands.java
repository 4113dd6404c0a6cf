package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.format.KvBlockLayout;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * The string and key commands but SET, the counters and the expiry commands: GET, GETSET, GETDEL, APPEND, STRLEN,
 * MGET, MSET, MSETNX, DEL and EXISTS. Read-modify-writes are compare-and-set loops on the key's version, so each is
 * atomic for its key as in redis; what holds across keys is said per command.
 */
final class StringCommands
{
    private final KvClient client;

    StringCommands(final KvClient client)
    {
        this.client = client;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("get", 2,
                (session, args, out) -> RespReplies.bulkOrNull(out, client.get(args[1]), session.protocol())),
            spec("getset", 3, this::getSet),
            spec("getdel", 2, this::getDel),
            spec("append", 3, this::append),
            spec("strlen", 2, this::strlen),
            spec("mget", -2, this::mget),
            spec("mset", -3, this::mset),
            spec("msetnx", -3, this::msetnx),
            spec("del", -2, this::del),
            spec("exists", -2, this::exists));
    }

    /** As redis's, it leaves the key with no expiry: the new value is written without one. */
    private void getSet(final Session session, final byte[][] args, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = client.getVersioned(args[1]);
            if (current == null ? client.compareAndSet(args[1], null, args[2]) :
                client.compareAndSetVersion(args[1], current, args[2]))
            {
                RespReplies.bulkOrNull(out, current == null ? null : current.value(), session.protocol());
                return;
            }
        }
    }

    /** The version read is the one deleted, by compare-and-set, so the value returned is the value removed. */
    private void getDel(final Session session, final byte[][] args, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = client.getVersioned(args[1]);
            if (current == null)
            {
                RespReplies.nullReply(out, session.protocol());
                return;
            }
            if (ExpireCommands.deleteVersion(client, args[1], current))
            {
                RespReplies.bulk(out, current.value());
                return;
            }
        }
    }

    /** The key keeps its expiry, as in redis. */
    private void append(final Session session, final byte[][] args, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = client.getVersioned(args[1]);
            final byte[] old = current == null ? new byte[0] : current.value();
            if ((long)old.length + args[2].length > KvBlockLayout.MAX_VALUE_LENGTH)
            {
                RespReplies.error(out, Errors.TOO_LONG);
                return;
            }
            final byte[] appended = Arrays.copyOf(old, old.length + args[2].length);
            System.arraycopy(args[2], 0, appended, old.length, args[2].length);
            if (current == null ? client.compareAndSet(args[1], null, appended) :
                client.compareAndSetVersion(args[1], current, appended, current.expireAtMillis()))
            {
                RespReplies.integer(out, appended.length);
                return;
            }
        }
    }

    private void strlen(final Session session, final byte[][] args, final ByteBuf out)
    {
        final byte[] value = client.get(args[1]);
        RespReplies.integer(out, value == null ? 0 : value.length);
    }

    private void mget(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<byte[]> values = client.multiGet(Arrays.asList(args).subList(1, args.length));
        RespReplies.arrayHeader(out, values.size());
        for (final byte[] value : values)
        {
            RespReplies.bulkOrNull(out, value, session.protocol());
        }
    }

    /** Each key is set on its own: a reader may see some of the keys set and not yet others. */
    private void mset(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length % 2 == 0)
        {
            RespReplies.error(out, Errors.arity("mset"));
            return;
        }
        for (int i = 1; i < args.length; i += 2)
        {
            client.put(args[i], args[i + 1]);
        }
        RespReplies.ok(out);
    }

    /**
     * All keys or none, as far as compare-and-set gives it: each key is inserted by a CAS from "no value", so a key
     * that has a value is never overwritten, whoever raced us. When one insert finds its key taken, the keys this
     * command inserted are removed again (each only if it still holds the value we wrote when checked just before its
     * delete), and the reply is 0. Readers may see the inserted keys meanwhile, and a write to one of them that
     * lands between that check and the delete is removed with it: the all-or-nothing outcome holds, the isolation of
     * redis's MSETNX does not.
     */
    private void msetnx(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length % 2 == 0)
        {
            RespReplies.error(out, Errors.arity("msetnx"));
            return;
        }
        // a key given twice takes its last value, as in redis, and is inserted once
        final Map<ByteBuffer, byte[]> pairs = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i += 2)
        {
            pairs.put(ByteBuffer.wrap(args[i]), args[i + 1]);
        }
        final List<byte[]> keys = new ArrayList<>(pairs.size());
        for (final ByteBuffer key : pairs.keySet())
        {
            keys.add(key.array());
        }
        for (final byte[] existing : client.multiGet(keys))
        {
            if (existing != null)
            {
                RespReplies.integer(out, 0);
                return;
            }
        }
        final List<byte[]> inserted = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            final byte[] value = pairs.get(ByteBuffer.wrap(key));
            if (!client.compareAndSet(key, null, value))
            {
                rollBack(inserted, pairs);
                RespReplies.integer(out, 0);
                return;
            }
            inserted.add(key);
        }
        RespReplies.integer(out, 1);
    }

    private void rollBack(final List<byte[]> inserted, final Map<ByteBuffer, byte[]> pairs)
    {
        for (final byte[] key : inserted)
        {
            final Versioned current = client.getVersioned(key);
            if (current != null && Arrays.equals(current.value(), pairs.get(ByteBuffer.wrap(key))))
            {
                client.delete(key);
            }
        }
    }

    private void del(final Session session, final byte[][] args, final ByteBuf out)
    {
        long deleted = 0;
        for (int i = 1; i < args.length; i++)
        {
            if (client.delete(args[i]))
            {
                deleted++;
            }
        }
        RespReplies.integer(out, deleted);
    }

    /** A key named twice counts twice, as in redis. */
    private void exists(final Session session, final byte[][] args, final ByteBuf out)
    {
        long found = 0;
        for (final byte[] value : client.multiGet(Arrays.asList(args).subList(1, args.length)))
        {
            if (value != null)
            {
                found++;
            }
        }
        RespReplies.integer(out, found);
    }
}
