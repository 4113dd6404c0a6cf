package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.List;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL], its options parsed and checked exactly as redis 7
 * does (the same syntax errors, in the same order); an expiry that redis would accept is answered with an error naming
 * the option, as key expiry is not stored yet. NX, XX and GET are compare-and-set loops on the key's version, so each
 * SET is atomic for its key.
 */
final class SetCommand
{
    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GET = 4;
    private static final int KEEPTTL = 8;
    private static final int EX = 16;
    private static final int PX = 32;
    private static final int EXAT = 64;
    private static final int PXAT = 128;
    private static final int ANY_EXPIRY = EX | PX | EXAT | PXAT;

    private final KvClient client;

    SetCommand(final KvClient client)
    {
        this.client = client;
    }

    List<CommandSpec> commands()
    {
        return List.of(spec("set", -3, this::set));
    }

    private void set(final Session session, final byte[][] args, final ByteBuf out)
    {
        int flags = 0;
        byte[] expire = null;
        for (int j = 3; j < args.length; j++)
        {
            final byte[] opt = args[j];
            final boolean hasNext = j < args.length - 1;
            if (is(opt, "nx") && (flags & XX) == 0)
            {
                flags |= NX;
            }
            else if (is(opt, "xx") && (flags & NX) == 0)
            {
                flags |= XX;
            }
            else if (is(opt, "get"))
            {
                flags |= GET;
            }
            else if (is(opt, "keepttl") && (flags & ANY_EXPIRY) == 0)
            {
                flags |= KEEPTTL;
            }
            else if (hasNext && expiryOption(opt) != 0 && (flags & (KEEPTTL | (ANY_EXPIRY & ~expiryOption(opt)))) == 0)
            {
                flags |= expiryOption(opt);
                expire = args[++j];
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        if (expire != null)
        {
            if (!RespNumbers.isLong(expire))
            {
                RespReplies.error(out, Errors.NOT_INTEGER);
                return;
            }
            final long amount = RespNumbers.parseLong(expire);
            final boolean seconds = (flags & (EX | EXAT)) != 0;
            if (amount <= 0 || seconds && amount > Long.MAX_VALUE / 1000 ||
                (flags & (EX | PX)) != 0 && (seconds ? amount * 1000 : amount) > Long.MAX_VALUE - System.currentTimeMillis())
            {
                RespReplies.error(out, "ERR invalid expire time in 'set' command");
                return;
            }
        }
        if ((flags & (ANY_EXPIRY | KEEPTTL)) != 0)
        {
            RespReplies.error(out, "ERR SET " + optionName(flags) + ": key expiry is not supported by this dkv " +
                "compute node yet");
            return;
        }
        write(session, args[1], args[2], flags, out);
    }

    private void write(final Session session, final byte[] key, final byte[] value, final int flags, final ByteBuf out)
    {
        if ((flags & (NX | XX | GET)) == 0)
        {
            client.put(key, value);
            RespReplies.ok(out);
            return;
        }
        if (flags == NX)
        {
            if (client.compareAndSet(key, null, value))
            {
                RespReplies.ok(out);
            }
            else
            {
                RespReplies.nullReply(out, session.protocol());
            }
            return;
        }
        while (true)
        {
            final Versioned current = client.getVersioned(key);
            final byte[] old = current == null ? null : current.value();
            if ((flags & NX) != 0 && current != null || (flags & XX) != 0 && current == null)
            {
                RespReplies.bulkOrNull(out, (flags & GET) != 0 ? old : null, session.protocol());
                return;
            }
            if (current == null ? client.compareAndSet(key, null, value) : client.compareAndSetVersion(key, current, value))
            {
                if ((flags & GET) != 0)
                {
                    RespReplies.bulkOrNull(out, old, session.protocol());
                }
                else
                {
                    RespReplies.ok(out);
                }
                return;
            }
        }
    }

    private static int expiryOption(final byte[] opt)
    {
        if (is(opt, "ex"))
        {
            return EX;
        }
        if (is(opt, "px"))
        {
            return PX;
        }
        if (is(opt, "exat"))
        {
            return EXAT;
        }
        return is(opt, "pxat") ? PXAT : 0;
    }

    private static String optionName(final int flags)
    {
        return (flags & EX) != 0 ? "EX" : (flags & PX) != 0 ? "PX" : (flags & EXAT) != 0 ? "EXAT" :
            (flags & PXAT) != 0 ? "PXAT" : "KEEPTTL";
    }
}
