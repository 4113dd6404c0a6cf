package io.dkv.compute.script;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.IntBinaryOperator;

/**
 * The {@code bit} library redis gives scripts (LuaBitOp 1.0): 32-bit operations on numbers, each argument made a
 * 32-bit integer by rounding and keeping its low 32 bits, each result a signed 32-bit number.
 */
final class BitLib
{
    private BitLib()
    {
    }

    /** @return the library's table, unlocked. */
    static LuaTable table()
    {
        final LuaTable bit = new LuaTable();
        bit.rawset("tobit", RedisApi.function(args -> number(bit(args, 1))));
        bit.rawset("bnot", RedisApi.function(args -> number(~bit(args, 1))));
        bit.rawset("band", fold((a, b) -> a & b));
        bit.rawset("bor", fold((a, b) -> a | b));
        bit.rawset("bxor", fold((a, b) -> a ^ b));
        bit.rawset("lshift", RedisApi.function(args -> number(bit(args, 1) << (bit(args, 2) & 31))));
        bit.rawset("rshift", RedisApi.function(args -> number(bit(args, 1) >>> (bit(args, 2) & 31))));
        bit.rawset("arshift", RedisApi.function(args -> number(bit(args, 1) >> (bit(args, 2) & 31))));
        bit.rawset("rol", RedisApi.function(args -> number(Integer.rotateLeft(bit(args, 1), bit(args, 2) & 31))));
        bit.rawset("ror", RedisApi.function(args -> number(Integer.rotateRight(bit(args, 1), bit(args, 2) & 31))));
        bit.rawset("bswap", RedisApi.function(args -> number(Integer.reverseBytes(bit(args, 1)))));
        bit.rawset("tohex", RedisApi.function(BitLib::toHex));
        return bit;
    }

    private static LuaValue fold(final IntBinaryOperator operator)
    {
        return RedisApi.function(args ->
        {
            int result = bit(args, 1);
            for (int i = 2; i <= args.narg(); i++)
            {
                result = operator.applyAsInt(result, bit(args, i));
            }
            return number(result);
        });
    }

    private static Varargs toHex(final Varargs args)
    {
        final int value = bit(args, 1);
        final int digits = args.isnoneornil(2) ? 8 : bit(args, 2);
        final int count = Math.min(Math.abs(digits), 8);
        final String hex = String.format(digits < 0 ? "%08X" : "%08x", value);
        return LuaValue.valueOf(hex.substring(8 - count));
    }

    /** @return argument {@code i} as LuaBitOp reads a number: rounded, its low 32 bits. */
    private static int bit(final Varargs args, final int i)
    {
        return (int)(long)Math.rint(args.checkdouble(i));
    }

    private static LuaValue number(final int value)
    {
        return LuaValue.valueOf(value);
    }
}
