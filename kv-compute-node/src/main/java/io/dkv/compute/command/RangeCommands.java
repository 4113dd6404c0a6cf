package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * GETRANGE (and its old name SUBSTR) and SETRANGE, as redis 7.0's t_string.c answers them: indexes from either end,
 * clamped; SETRANGE pads with zero bytes, keeps the key's expiry and is a compare-and-set on the key's version. A
 * value is at most 1 MiB here (redis: 512 MB): past it, redis's "string exceeds maximum allowed size".
 */
final class RangeCommands
{
    private final KeyStore base;
    private final LongStrings longStrings;
    private final LongStringWrites longWrites;

    RangeCommands(final KeyStore base, final LongStrings longStrings, final LongStringWrites longWrites)
    {
        this.base = base;
        this.longStrings = longStrings;
        this.longWrites = longWrites;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("getrange", 4, this::getRange),
            spec("substr", 4, this::getRange),
            spec("setrange", 4, this::setRange));
    }

    private void getRange(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]) || !RespNumbers.isLong(args[3]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long first = RespNumbers.parseLong(args[2]);
        final long last = RespNumbers.parseLong(args[3]);
        final byte[] value = LongStrings.value(session.store(base), args[1]);
        if (value == KvClient.PIECES)
        {
            longStrings.getRange(session, session.store(base), args[1], first, last, out);
            return;
        }
        answerRange(out, value, first, last);
    }

    /** GETRANGE's reply of a plain value (null: none), the range resolved as redis's. */
    static void answerRange(final ByteBuf out, final byte[] value, final long first, final long last)
    {
        long start = first;
        long end = last;
        final long length = value == null ? 0 : value.length;
        if (value == null || (start < 0 && end < 0 && start > end))
        {
            RespReplies.bulk(out, new byte[0]);
            return;
        }
        start = start < 0 ? Math.max(0, length + start) : start;
        end = end < 0 ? Math.max(0, length + end) : end;
        end = Math.min(end, length - 1);
        if (start > end || length == 0)
        {
            RespReplies.bulk(out, new byte[0]);
            return;
        }
        RespReplies.bulk(out, Arrays.copyOfRange(value, (int)start, (int)end + 1));
    }

    private void setRange(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long offset = RespNumbers.parseLong(args[2]);
        if (offset < 0)
        {
            RespReplies.error(out, "ERR offset is out of range");
            return;
        }
        final byte[] patch = args[3];
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = LongStrings.versioned(store, args[1]);
            if (current == LongStrings.IN_PIECES)
            {
                if (patch.length > 0 && offset > PiecedStrings.MAX_LENGTH - patch.length)
                {
                    RespReplies.error(out, Errors.TOO_LONG);
                    return;
                }
                RespReplies.integer(out, patch.length == 0 ? LongStrings.length(store, args[1]) :
                    longWrites.setRange(session, args[1], offset, patch));
                return;
            }
            final byte[] old = current == null ? null : current.value();
            if (patch.length == 0)
            {
                RespReplies.integer(out, old == null ? 0 : old.length);
                return;
            }
            if (offset > PiecedStrings.MAX_LENGTH - patch.length)
            {
                RespReplies.error(out, Errors.TOO_LONG);
                return;
            }
            if (offset > KvBlockLayout.MAX_VALUE_LENGTH - patch.length)
            {
                RespReplies.integer(out, longWrites.setRange(session, args[1], offset, patch));
                return;
            }
            final int length = Math.max(old == null ? 0 : old.length, (int)offset + patch.length);
            final byte[] written = old == null ? new byte[length] : Arrays.copyOf(old, length);
            System.arraycopy(patch, 0, written, (int)offset, patch.length);
            if (Rewrites.keepingExpiry(store, args[1], current, written))
            {
                RespReplies.integer(out, written.length);
                return;
            }
        }
    }
}
