package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * BITFIELD and BITFIELD_RO, as redis 7.0's bitops.c answers them: GET, SET and INCRBY of signed (i1 to i64) and
 * unsigned (u1 to u63) integers at bit offsets (#n: n times the width), OVERFLOW WRAP, SAT or FAIL from where it is
 * given on, each operation in order on the value the ones before left. A BITFIELD that writes is a compare-and-set on
 * the key's version that keeps its expiry, made even where every write failed its overflow (redis pads the value
 * first), so it is atomic for its key.
 */
final class BitfieldCommand
{
    private static final String BAD_TYPE =
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final int GET = 0;
    private static final int SET = 1;
    private static final int INCRBY = 2;
    private static final int WRAP = 0;
    private static final int SAT = 1;
    private static final int FAIL = 2;

    /** One operation as given. */
    private record Op(int code, boolean signed, int bits, long offset, long argument, int overflow)
    {
    }

    private final KeyStore base;
    private final LongStrings longStrings;
    private final LongStringWrites longWrites;

    BitfieldCommand(final KeyStore base, final LongStrings longStrings, final LongStringWrites longWrites)
    {
        this.base = base;
        this.longStrings = longStrings;
        this.longWrites = longWrites;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("bitfield", -2, (session, args, out) -> bitfield(session, args, out, false)),
            spec("bitfield_ro", -2, (session, args, out) -> bitfield(session, args, out, true)));
    }

    private void bitfield(final Session session, final byte[][] args, final ByteBuf out, final boolean readOnlyCommand)
    {
        final List<Op> ops = parse(args, out);
        if (ops == null)
        {
            return;
        }
        long highest = -1;
        for (final Op op : ops)
        {
            if (op.code != GET)
            {
                highest = Math.max(highest, op.offset + op.bits - 1);
            }
        }
        final KeyStore store = session.store(base);
        if (highest < 0)
        {
            final byte[] value = LongStrings.value(store, args[1]);
            if (value == KvClient.PIECES)
            {
                inPieces(session, args[1], ops, highest, out);
                return;
            }
            reply(ops, value == null ? new byte[0] : value, out, session.protocol());
            return;
        }
        if (readOnlyCommand)
        {
            RespReplies.error(out, "ERR BITFIELD_RO only supports the GET subcommand");
            return;
        }
        if ((highest >>> 3) + 1 > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            // past what a plain value takes: the string is (or becomes) one in pieces
            inPieces(session, args[1], ops, highest, out);
            return;
        }
        while (true)
        {
            final Versioned current = LongStrings.versioned(store, args[1]);
            if (current == LongStrings.IN_PIECES)
            {
                inPieces(session, args[1], ops, highest, out);
                return;
            }
            final byte[] old = current == null ? new byte[0] : current.value();
            final byte[] value = Arrays.copyOf(old, (int)Math.max(old.length, (highest >>> 3) + 1));
            final ByteBuf answer = out.alloc().buffer();
            try
            {
                reply(ops, value, answer, session.protocol());
                if ((current != null && Arrays.equals(old, value)) ||
                    Rewrites.keepingExpiry(store, args[1], current, value))
                {
                    out.writeBytes(answer);
                    return;
                }
            }
            finally
            {
                answer.release();
            }
        }
    }

    /**
     * BITFIELD over a string in pieces (or one it makes): its operations run over the window of bytes they reach,
     * read a piece at a time; with a write, in one transaction that writes the window back (the pieces it touches).
     *
     * @param highest the highest bit written, -1 when the operations only read.
     */
    private void inPieces(final Session session, final byte[] key, final List<Op> ops, final long highest,
        final ByteBuf out)
    {
        long low = Long.MAX_VALUE;
        long high = 0;
        for (final Op op : ops)
        {
            low = Math.min(low, op.offset >>> 3);
            high = Math.max(high, (op.offset + op.bits - 1) >>> 3);
        }
        if (high - low + 1 > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            RespReplies.error(out, "ERR BITFIELD over more than " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes of a " +
                "long string at once is not served (dkv)");
            return;
        }
        final long from = low;
        final long to = high;
        final List<Op> shifted = new ArrayList<>(ops.size());
        for (final Op op : ops)
        {
            shifted.add(new Op(op.code, op.signed, op.bits, op.offset - from * 8, op.argument, op.overflow));
        }
        if (highest < 0)
        {
            final StringBytes current = longStrings.bytesAt(session.store(base), key);
            reply(shifted, current == null ? new byte[(int)(to - from + 1)] : LongStringBits.window(current, from, to),
                out, session.protocol());
            return;
        }
        final ByteBuf[] answer = new ByteBuf[1];
        try
        {
            longWrites.change(session, key, from, current ->
            {
                if (answer[0] != null)
                {
                    answer[0].release();
                }
                answer[0] = out.alloc().buffer();
                final byte[] window = LongStringBits.window(current, from, to);
                reply(shifted, window, answer[0], session.protocol());
                // redis grows the string to the highest bit written, not read
                return Arrays.copyOf(window, (int)((highest >>> 3) - from + 1));
            });
            out.writeBytes(answer[0]);
        }
        finally
        {
            if (answer[0] != null)
            {
                answer[0].release();
            }
        }
    }

    /** @return the operations, or null when refused (the error written). */
    private static List<Op> parse(final byte[][] args, final ByteBuf out)
    {
        final List<Op> ops = new ArrayList<>();
        int overflow = WRAP;
        for (int j = 2; j < args.length; j++)
        {
            final int remaining = args.length - j - 1;
            final int code;
            if (CommandTable.is(args[j], "get") && remaining >= 2)
            {
                code = GET;
            }
            else if (CommandTable.is(args[j], "set") && remaining >= 3)
            {
                code = SET;
            }
            else if (CommandTable.is(args[j], "incrby") && remaining >= 3)
            {
                code = INCRBY;
            }
            else if (CommandTable.is(args[j], "overflow") && remaining >= 1)
            {
                j++;
                if (CommandTable.is(args[j], "wrap"))
                {
                    overflow = WRAP;
                }
                else if (CommandTable.is(args[j], "sat"))
                {
                    overflow = SAT;
                }
                else if (CommandTable.is(args[j], "fail"))
                {
                    overflow = FAIL;
                }
                else
                {
                    RespReplies.error(out, "ERR Invalid OVERFLOW type specified");
                    return null;
                }
                continue;
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return null;
            }
            final byte[] type = args[j + 1];
            final boolean signed = type.length > 0 && type[0] == 'i';
            final long bits = type.length > 1 ? RespNumbers.parseLong(Arrays.copyOfRange(type, 1, type.length)) : 0;
            if (type.length < 2 || (type[0] != 'i' && type[0] != 'u') ||
                !RespNumbers.isLong(Arrays.copyOfRange(type, 1, type.length)) || bits < 1 || bits > (signed ? 64 : 63))
            {
                RespReplies.error(out, BAD_TYPE);
                return null;
            }
            final long offset = BitCommands.offset(args[j + 2], (int)bits);
            if (offset < 0)
            {
                RespReplies.error(out, BAD_OFFSET);
                return null;
            }
            long argument = 0;
            if (code != GET)
            {
                if (!RespNumbers.isLong(args[j + 3]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return null;
                }
                argument = RespNumbers.parseLong(args[j + 3]);
            }
            ops.add(new Op(code, signed, (int)bits, offset, argument, overflow));
            j += code == GET ? 2 : 3;
        }
        return ops;
    }

    /** Run the operations in order on {@code value} (changed in place), writing each one's reply. */
    private static void reply(final List<Op> ops, final byte[] value, final ByteBuf out, final int protocol)
    {
        RespReplies.arrayHeader(out, ops.size());
        for (final Op op : ops)
        {
            if (op.code == GET)
            {
                RespReplies.integer(out, op.signed ? signed(value, op.offset, op.bits) :
                    unsigned(value, op.offset, op.bits));
                continue;
            }
            final long old = op.signed ? signed(value, op.offset, op.bits) : unsigned(value, op.offset, op.bits);
            final long wanted = op.code == INCRBY ? old : op.argument;
            final long increment = op.code == INCRBY ? op.argument : 0;
            final long[] limit = new long[1];
            final boolean overflow = op.signed ? signedOverflow(wanted, increment, op.bits, op.overflow, limit) :
                unsignedOverflow(wanted, increment, op.bits, op.overflow, limit);
            if (overflow && op.overflow == FAIL)
            {
                RespReplies.nullReply(out, protocol);
                continue;
            }
            final long written = overflow ? limit[0] : wanted + increment;
            RespReplies.integer(out, op.code == INCRBY ? written : old);
            write(value, op.offset, op.bits, written);
        }
    }

    /** redis's checkUnsignedBitfieldOverflow, its unsigned 64-bit arithmetic in Java's longs. */
    private static boolean unsignedOverflow(final long value, final long increment, final int bits, final int kind,
        final long[] limit)
    {
        final long max = (1L << bits) - 1;
        final long maxIncrement = max - value;
        final long minIncrement = -value;
        if (Long.compareUnsigned(value, max) > 0 || (increment > 0 && increment > maxIncrement))
        {
            limit[0] = kind == SAT ? max : (value + increment) & max;
            return true;
        }
        if (increment < 0 && increment < minIncrement)
        {
            limit[0] = kind == SAT ? 0 : (value + increment) & max;
            return true;
        }
        return false;
    }

    /** redis's checkSignedBitfieldOverflow. */
    private static boolean signedOverflow(final long value, final long increment, final int bits, final int kind,
        final long[] limit)
    {
        final long max = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        final long min = -max - 1;
        final long maxIncrement = max - value;
        final long minIncrement = min - value;
        final boolean high = value > max || (bits != 64 && increment > maxIncrement) ||
            (value >= 0 && increment > 0 && increment > maxIncrement);
        final boolean low = !high && (value < min || (bits != 64 && increment < minIncrement) ||
            (value < 0 && increment < 0 && increment < minIncrement));
        if (!high && !low)
        {
            return false;
        }
        if (kind == SAT)
        {
            limit[0] = high ? max : min;
            return true;
        }
        long sum = value + increment;
        if (bits < 64)
        {
            final long mask = -1L << bits;
            sum = (sum & (1L << (bits - 1))) != 0 ? sum | mask : sum & ~mask;
        }
        limit[0] = sum;
        return true;
    }

    private static long unsigned(final byte[] value, final long offset, final int bits)
    {
        long result = 0;
        for (int i = 0; i < bits; i++)
        {
            final long at = offset + i;
            final long index = at >>> 3;
            final int bit = index < value.length ? (value[(int)index] >>> (7 - (int)(at & 7))) & 1 : 0;
            result = (result << 1) | bit;
        }
        return result;
    }

    private static long signed(final byte[] value, final long offset, final int bits)
    {
        final long result = unsigned(value, offset, bits);
        return bits < 64 && (result & (1L << (bits - 1))) != 0 ? result | (-1L << bits) : result;
    }

    private static void write(final byte[] value, final long offset, final int bits, final long written)
    {
        for (int i = 0; i < bits; i++)
        {
            final long at = offset + i;
            final int index = (int)(at >>> 3);
            final int mask = 1 << (7 - (int)(at & 7));
            value[index] = (byte)(((written >>> (bits - 1 - i)) & 1) != 0 ? value[index] | mask : value[index] & ~mask);
        }
    }
}
