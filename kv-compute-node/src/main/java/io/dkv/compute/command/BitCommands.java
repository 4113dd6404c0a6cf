package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.compute.resp.RespDecoder;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP, as redis 7.0's bitops.c answers them: bit 0 is the most significant bit
 * of the first byte; ranges in bytes or (BIT) bits, from either end, clamped. SETBIT grows the value with zero bytes,
 * keeps its expiry and is a compare-and-set on the key's version; BITOP is one transaction over every key it names. A
 * string longer than a plain value takes (1 MiB) is one in pieces ({@link LongStrings}): SETBIT past that makes one,
 * GETBIT, BITCOUNT and BITPOS read it a piece at a time; BITOP reads its sources so and writes a long result in
 * pieces (inside MULTI it refuses strings in pieces).
 */
final class BitCommands
{
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final String BAD_BIT = "ERR bit is not an integer or out of range";

    private final KeyStore base;
    private final LongStrings longStrings;
    private final LongStringWrites longWrites;
    private final LongStringBits longBits;

    BitCommands(final KeyStore base, final LongStrings longStrings, final LongStringWrites longWrites,
        final LongStringBits longBits)
    {
        this.base = base;
        this.longStrings = longStrings;
        this.longWrites = longWrites;
        this.longBits = longBits;
    }

    /** @return the bytes of the string at {@code key}, plain or in pieces; null when it has none. */
    private StringBytes bytesAt(final Session session, final byte[] key)
    {
        final KeyStore store = session.store(base);
        final byte[] value = LongStrings.value(store, key);
        if (value == KvClient.PIECES)
        {
            // read again, whatever it holds now
            return longStrings.bytesAt(store, key);
        }
        return value == null ? null : StringBytes.of(value);
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("setbit", 4, this::setBit),
            spec("getbit", 3, this::getBit),
            spec("bitcount", -2, this::bitCount),
            spec("bitpos", -3, this::bitPos),
            spec("bitop", -4, this::bitOp));
    }

    /** @return the bit offset, or -1 when redis refuses it (its error written). */
    private static long offset(final byte[] arg, final ByteBuf out)
    {
        final long offset = offset(arg, 0);
        if (offset < 0)
        {
            RespReplies.error(out, BAD_OFFSET);
        }
        return offset;
    }

    /**
     * redis's getBitOffsetFromArgument: an integer, or with {@code width} over 0 "#n" for n times the width (wrapping
     * as its C does), whose byte lies before redis's string bound.
     *
     * @return the bit offset, or -1 when redis refuses it.
     */
    static long offset(final byte[] arg, final int width)
    {
        final boolean times = width > 0 && arg.length > 0 && arg[0] == '#';
        final byte[] digits = times ? Arrays.copyOfRange(arg, 1, arg.length) : arg;
        if (!RespNumbers.isLong(digits))
        {
            return -1;
        }
        final long offset = times ? RespNumbers.parseLong(digits) * width : RespNumbers.parseLong(digits);
        return offset < 0 || (offset >>> 3) >= RespDecoder.REDIS_MAX_BULK ? -1 : offset;
    }

    private void setBit(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long offset = offset(args[2], out);
        if (offset < 0)
        {
            return;
        }
        final long on = RespNumbers.parseLong(args[3]);
        if (!RespNumbers.isLong(args[3]) || (on & ~1L) != 0)
        {
            RespReplies.error(out, BAD_BIT);
            return;
        }
        final int index = (int)Math.min(Integer.MAX_VALUE, offset >>> 3);
        if ((offset >>> 3) + 1 > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            // past what a plain value takes: the string is (or becomes) one in pieces
            RespReplies.integer(out, longWrites.setBit(session, args[1], offset, on == 1));
            return;
        }
        final int mask = 1 << (7 - (int)(offset & 7));
        final KeyStore store = session.store(base);
        while (true)
        {
            final Versioned current = LongStrings.versioned(store, args[1]);
            if (current == LongStrings.IN_PIECES)
            {
                RespReplies.integer(out, longWrites.setBit(session, args[1], offset, on == 1));
                return;
            }
            final byte[] old = current == null ? new byte[0] : current.value();
            final boolean was = index < old.length && (old[index] & mask) != 0;
            if (current != null && index < old.length && was == (on == 1))
            {
                RespReplies.integer(out, was ? 1 : 0);
                return;
            }
            final byte[] written = Arrays.copyOf(old, Math.max(old.length, index + 1));
            written[index] = (byte)(on == 1 ? written[index] | mask : written[index] & ~mask);
            if (Rewrites.keepingExpiry(store, args[1], current, written))
            {
                RespReplies.integer(out, was ? 1 : 0);
                return;
            }
        }
    }

    private void getBit(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long offset = offset(args[2], out);
        if (offset < 0)
        {
            return;
        }
        final StringBytes value = bytesAt(session, args[1]);
        final long index = offset >>> 3;
        RespReplies.integer(out, value != null && index < value.length() &&
            (value.at(index) & (1 << (7 - (int)(offset & 7)))) != 0 ? 1 : 0);
    }

    /** BITCOUNT key [start end [BYTE|BIT]]. */
    private void bitCount(final Session session, final byte[][] args, final ByteBuf out)
    {
        final StringBytes value = bytesAt(session, args[1]);
        if (value == null)
        {
            RespReplies.integer(out, 0);
            return;
        }
        final Range range = range(args, 2, args.length == 2, false, value.length(), out);
        if (range == null)
        {
            return;
        }
        if (range.empty)
        {
            RespReplies.integer(out, 0);
            return;
        }
        // bit by bit only at the range's ragged ends, a byte at a time between
        long count = 0;
        long bit = range.firstBit;
        for (; bit <= range.lastBit && (bit & 7) != 0; bit++)
        {
            count += (value.at(bit >>> 3) >>> (7 - (int)(bit & 7))) & 1;
        }
        for (; bit + 7 <= range.lastBit; bit += 8)
        {
            count += Integer.bitCount(value.at(bit >>> 3));
        }
        for (; bit <= range.lastBit; bit++)
        {
            count += (value.at(bit >>> 3) >>> (7 - (int)(bit & 7))) & 1;
        }
        RespReplies.integer(out, count);
    }

    /** BITPOS key bit [start [end [BYTE|BIT]]]: a missing key is an endless run of zero bits. */
    private void bitPos(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long bit = RespNumbers.parseLong(args[2]);
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        if (bit != 0 && bit != 1)
        {
            RespReplies.error(out, "ERR The bit argument must be 1 or 0.");
            return;
        }
        final StringBytes value = bytesAt(session, args[1]);
        if (value == null)
        {
            RespReplies.integer(out, bit == 1 ? -1 : 0);
            return;
        }
        if (args.length > 6)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final Range range = range(args, 3, args.length == 3, true, value.length(), out);
        if (range == null)
        {
            return;
        }
        if (range.empty)
        {
            RespReplies.integer(out, -1);
            return;
        }
        for (long at = range.firstBit; at <= range.lastBit; at++)
        {
            if (((value.at(at >>> 3) >>> (7 - (int)(at & 7))) & 1) == bit)
            {
                RespReplies.integer(out, at);
                return;
            }
        }
        // no such bit in the range: past a range with no end given, the value reads as zero bits (redis's padding)
        RespReplies.integer(out, bit == 0 && !range.endGiven ? (range.lastByte + 1) * 8 : -1);
    }

    /**
     * BITOP AND|OR|XOR|NOT destination key...: one transaction reads the keys and writes the result (with no expiry,
     * as SET), or deletes the destination when every key is empty or missing; answers the result's length.
     */
    private void bitOp(final Session session, final byte[][] args, final ByteBuf out)
    {
        final int op;
        if (CommandTable.is(args[1], "and"))
        {
            op = 0;
        }
        else if (CommandTable.is(args[1], "or"))
        {
            op = 1;
        }
        else if (CommandTable.is(args[1], "xor"))
        {
            op = 2;
        }
        else if (CommandTable.is(args[1], "not"))
        {
            op = 3;
        }
        else
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        if (op == 3 && args.length != 4)
        {
            RespReplies.error(out, "ERR BITOP NOT must be called with a single source key.");
            return;
        }
        if (!session.executing())
        {
            // strings in pieces among the sources, or a result longer than a value takes: in pieces too
            RespReplies.integer(out, longBits.bitOp(op, args[2], Arrays.asList(args).subList(3, args.length)));
            return;
        }
        final long length = session.store(base).atomically(tx ->
        {
            final List<byte[]> sources = tx.multiGet(Arrays.asList(args).subList(3, args.length));
            LongStrings.refusePieces("BITOP", sources);
            int longest = 0;
            for (final byte[] source : sources)
            {
                longest = Math.max(longest, source == null ? 0 : source.length);
            }
            if (longest == 0)
            {
                tx.delete(args[2]);
                return 0L;
            }
            final byte[] result = new byte[longest];
            for (int j = 0; j < longest; j++)
            {
                int output = byteAt(sources.get(0), j);
                output = op == 3 ? ~output : output;
                for (int i = 1; i < sources.size(); i++)
                {
                    final int next = byteAt(sources.get(i), j);
                    output = op == 0 ? output & next : op == 1 ? output | next : output ^ next;
                }
                result[j] = (byte)output;
            }
            tx.put(args[2], result, KvClient.NO_EXPIRY);
            return (long)longest;
        });
        RespReplies.integer(out, length);
    }

    private static int byteAt(final byte[] value, final int index)
    {
        return value == null || index >= value.length ? 0 : value[index] & 0xff;
    }

    /** A range of bits a BITCOUNT or BITPOS reads, as redis's clamps it; bytes whole unless BIT was given. */
    private record Range(boolean empty, long firstBit, long lastBit, long lastByte, boolean endGiven)
    {
    }

    /**
     * @param from      the index of the start argument.
     * @param whole     no range given: the whole value.
     * @param endOptional BITPOS: start alone is a range to the end.
     * @return the range, or null when refused (the error written).
     */
    private static Range range(final byte[][] args, final int from, final boolean whole, final boolean endOptional,
        final long length, final ByteBuf out)
    {
        if (whole)
        {
            return length == 0 ? new Range(true, 0, -1, -1, false) :
                new Range(false, 0, length * 8L - 1, length - 1, false);
        }
        final int ranged = args.length - from;
        if (!endOptional && ranged != 2 && ranged != 3)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return null;
        }
        if (!RespNumbers.isLong(args[from]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return null;
        }
        long start = RespNumbers.parseLong(args[from]);
        final boolean endGiven = ranged >= 2;
        if (!endOptional)
        {
            // BITCOUNT reads start and end, then answers 0 for a reversed range from the end, then reads the unit
            if (!RespNumbers.isLong(args[from + 1]))
            {
                RespReplies.error(out, Errors.NOT_INTEGER);
                return null;
            }
            if (start < 0 && RespNumbers.parseLong(args[from + 1]) < 0 && start > RespNumbers.parseLong(args[from + 1]))
            {
                return new Range(true, 0, -1, -1, true);
            }
        }
        boolean bits = false;
        if (ranged == 3)
        {
            if (CommandTable.is(args[from + 2], "bit"))
            {
                bits = true;
            }
            else if (!CommandTable.is(args[from + 2], "byte"))
            {
                RespReplies.error(out, Errors.SYNTAX);
                return null;
            }
        }
        if (endGiven && !RespNumbers.isLong(args[from + 1]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return null;
        }
        long end = endGiven ? RespNumbers.parseLong(args[from + 1]) : length - 1L;
        final long total = bits ? length * 8L : length;
        start = start < 0 ? Math.max(0, total + start) : start;
        end = end < 0 ? Math.max(0, total + end) : end;
        end = Math.min(end, total - 1);
        if (start > end)
        {
            return new Range(true, 0, -1, -1, endGiven);
        }
        return bits ? new Range(false, start, end, end >>> 3, endGiven) :
            new Range(false, start * 8, end * 8 + 7, end, endGiven);
    }
}
