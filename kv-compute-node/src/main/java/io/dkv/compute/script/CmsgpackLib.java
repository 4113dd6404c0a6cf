package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cmsgpack} library redis gives scripts (lua_cmsgpack 0.4): pack, unpack, unpack_one and unpack_limit with
 * its encoding: a number that is an integer in the smallest integer type that holds it, else a float if one holds it
 * exactly, else a double; a table an array when its keys are exactly 1..n, else a map; tables nested past 16 levels
 * (a table that holds itself) packed as nil.
 */
final class CmsgpackLib
{
    private static final int MAX_NESTING = 16;

    private CmsgpackLib()
    {
    }

    /** @return the library's table, unlocked. */
    static LuaTable table()
    {
        final LuaTable cmsgpack = new LuaTable();
        cmsgpack.rawset("pack", RedisApi.function(args ->
        {
            if (args.narg() == 0)
            {
                throw new LuaError("MessagePack pack needs input.");
            }
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 1; i <= args.narg(); i++)
            {
                encode(args.arg(i), out, 0);
            }
            return LuaString.valueUsing(out.toByteArray());
        }));
        cmsgpack.rawset("unpack", RedisApi.function(args -> unpack(args.checkstring(1), Integer.MAX_VALUE, 0, true)));
        cmsgpack.rawset("unpack_one", RedisApi.function(args ->
            unpack(args.checkstring(1), 1, args.optint(2, 0), false)));
        cmsgpack.rawset("unpack_limit", RedisApi.function(args ->
            unpack(args.checkstring(1), args.checkint(2), args.optint(3, 0), false)));
        return cmsgpack;
    }

    private static void encode(final LuaValue value, final ByteArrayOutputStream out, final int level)
    {
        switch (value.type())
        {
            case LuaValue.TBOOLEAN -> out.write(value.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(value.todouble(), out);
            case LuaValue.TSTRING -> bytes(LuaToResp.bytes(value), out);
            case LuaValue.TTABLE ->
            {
                if (level == MAX_NESTING)
                {
                    out.write(0xc0);
                }
                else
                {
                    table((LuaTable)value, out, level);
                }
            }
            default -> out.write(0xc0);
        }
    }

    private static void number(final double n, final ByteArrayOutputStream out)
    {
        if (!Double.isInfinite(n) && (long)n == n)
        {
            integer((long)n, out);
        }
        else if ((float)n == n)
        {
            out.write(0xca);
            out.writeBytes(ByteBuffer.allocate(Float.BYTES).putFloat((float)n).array());
        }
        else
        {
            out.write(0xcb);
            out.writeBytes(ByteBuffer.allocate(Double.BYTES).putDouble(n).array());
        }
    }

    private static void integer(final long n, final ByteArrayOutputStream out)
    {
        if (n >= 0)
        {
            if (n <= 127)
            {
                out.write((int)n);
            }
            else if (n <= 0xff)
            {
                sized(0xcc, n, 1, out);
            }
            else if (n <= 0xffff)
            {
                sized(0xcd, n, 2, out);
            }
            else if (n <= 0xffffffffL)
            {
                sized(0xce, n, 4, out);
            }
            else
            {
                sized(0xcf, n, 8, out);
            }
        }
        else if (n >= -32)
        {
            out.write((int)n & 0xff);
        }
        else if (n >= Byte.MIN_VALUE)
        {
            sized(0xd0, n, 1, out);
        }
        else if (n >= Short.MIN_VALUE)
        {
            sized(0xd1, n, 2, out);
        }
        else if (n >= Integer.MIN_VALUE)
        {
            sized(0xd2, n, 4, out);
        }
        else
        {
            sized(0xd3, n, 8, out);
        }
    }

    /** A type byte, then the low {@code size} bytes of {@code n}, big-endian. */
    private static void sized(final int type, final long n, final int size, final ByteArrayOutputStream out)
    {
        out.write(type);
        for (int i = size - 1; i >= 0; i--)
        {
            out.write((int)(n >>> (8 * i)) & 0xff);
        }
    }

    private static void bytes(final byte[] bytes, final ByteArrayOutputStream out)
    {
        if (bytes.length < 32)
        {
            out.write(0xa0 | bytes.length);
        }
        else if (bytes.length <= 0xff)
        {
            sized(0xd9, bytes.length, 1, out);
        }
        else if (bytes.length <= 0xffff)
        {
            sized(0xda, bytes.length, 2, out);
        }
        else
        {
            sized(0xdb, bytes.length, 4, out);
        }
        out.writeBytes(bytes);
    }

    private static void table(final LuaTable table, final ByteArrayOutputStream out, final int level)
    {
        int count = 0;
        double max = 0;
        boolean array = true;
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            final LuaValue key = next.arg1();
            count++;
            if (array && key.type() == LuaValue.TNUMBER && key.todouble() > 0 &&
                key.todouble() == (int)key.todouble())
            {
                max = Math.max(max, key.todouble());
            }
            else
            {
                array = false;
            }
        }
        if (array && max == count)
        {
            final int length = table.length();
            header(0x90, 15, 0xdc, 0xdd, length, out);
            for (int i = 1; i <= length; i++)
            {
                encode(table.rawget(i), out, level + 1);
            }
            return;
        }
        header(0x80, 15, 0xde, 0xdf, count, out);
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            encode(next.arg1(), out, level + 1);
            encode(next.arg(2), out, level + 1);
        }
    }

    private static void header(final int fixed, final int fixedMax, final int type16, final int type32,
        final int length, final ByteArrayOutputStream out)
    {
        if (length <= fixedMax)
        {
            out.write(fixed | length);
        }
        else if (length <= 0xffff)
        {
            sized(type16, length, 2, out);
        }
        else
        {
            sized(type32, length, 4, out);
        }
    }

    /** lua_cmsgpack's mp_unpack_full: the values, and before them the next offset (-1: all read) unless all. */
    private static Varargs unpack(final LuaString text, final int limit, final int offset, final boolean all)
    {
        final byte[] bytes = LuaToResp.bytes(text);
        if (offset < 0 || limit < 0)
        {
            throw new LuaError("Invalid request to unpack with offset of " + offset + " and limit of " + limit + ".");
        }
        if (offset > bytes.length)
        {
            throw new LuaError("Start offset " + offset + " greater than input length " + bytes.length + ".");
        }
        final ByteBuffer in = ByteBuffer.wrap(bytes, offset, bytes.length - offset);
        final List<LuaValue> values = new ArrayList<>();
        if (!all)
        {
            values.add(LuaValue.NIL);
        }
        for (int count = 0; in.hasRemaining() && count < limit; count++)
        {
            values.add(decode(in));
        }
        if (!all)
        {
            values.set(0, LuaValue.valueOf(in.hasRemaining() ? in.position() : -1));
        }
        return LuaValue.varargsOf(values.toArray(LuaValue[]::new));
    }

    private static LuaValue decode(final ByteBuffer in)
    {
        need(in, 1);
        final int type = in.get() & 0xff;
        if (type <= 0x7f || type >= 0xe0)
        {
            return LuaValue.valueOf((byte)type);
        }
        if (type >= 0xa0 && type <= 0xbf)
        {
            return string(in, type & 0x1f);
        }
        if (type >= 0x90 && type <= 0x9f)
        {
            return array(in, type & 0x0f);
        }
        if (type >= 0x80 && type <= 0x8f)
        {
            return map(in, type & 0x0f);
        }
        return switch (type)
        {
            case 0xc0 -> LuaValue.NIL;
            case 0xc2 -> LuaValue.FALSE;
            case 0xc3 -> LuaValue.TRUE;
            case 0xca -> LuaValue.valueOf(need(in, 4).getFloat());
            case 0xcb -> LuaValue.valueOf(need(in, 8).getDouble());
            case 0xcc -> LuaValue.valueOf(need(in, 1).get() & 0xff);
            case 0xcd -> LuaValue.valueOf(need(in, 2).getShort() & 0xffff);
            case 0xce -> LuaValue.valueOf(need(in, 4).getInt() & 0xffffffffL);
            case 0xcf -> LuaValue.valueOf(unsigned(need(in, 8).getLong()));
            case 0xd0 -> LuaValue.valueOf(need(in, 1).get());
            case 0xd1 -> LuaValue.valueOf(need(in, 2).getShort());
            case 0xd2 -> LuaValue.valueOf(need(in, 4).getInt());
            case 0xd3 -> LuaValue.valueOf((double)need(in, 8).getLong());
            case 0xc4, 0xd9 -> string(in, need(in, 1).get() & 0xff);
            case 0xc5, 0xda -> string(in, need(in, 2).getShort() & 0xffff);
            case 0xc6, 0xdb -> string(in, length(need(in, 4).getInt()));
            case 0xdc -> array(in, need(in, 2).getShort() & 0xffff);
            case 0xdd -> array(in, length(need(in, 4).getInt()));
            case 0xde -> map(in, need(in, 2).getShort() & 0xffff);
            case 0xdf -> map(in, length(need(in, 4).getInt()));
            default -> throw new LuaError("Bad data format in input.");
        };
    }

    private static LuaValue string(final ByteBuffer in, final int length)
    {
        final byte[] bytes = new byte[length];
        need(in, length).get(bytes);
        return LuaString.valueUsing(bytes);
    }

    private static LuaValue array(final ByteBuffer in, final int length)
    {
        final LuaTable table = new LuaTable();
        for (int i = 1; i <= length; i++)
        {
            table.rawset(i, decode(in));
        }
        return table;
    }

    private static LuaValue map(final ByteBuffer in, final int length)
    {
        final LuaTable table = new LuaTable();
        for (int i = 0; i < length; i++)
        {
            final LuaValue key = decode(in);
            final LuaValue value = decode(in);
            if (!key.isnil())
            {
                table.rawset(key, value);
            }
        }
        return table;
    }

    private static ByteBuffer need(final ByteBuffer in, final int bytes)
    {
        if (in.remaining() < bytes)
        {
            throw new LuaError("Missing bytes in input.");
        }
        return in;
    }

    private static int length(final int length)
    {
        if (length < 0)
        {
            throw new LuaError("Missing bytes in input.");
        }
        return length;
    }

    private static double unsigned(final long value)
    {
        return value >= 0 ? value : (value >>> 1) * 2.0 + (value & 1);
    }
}
