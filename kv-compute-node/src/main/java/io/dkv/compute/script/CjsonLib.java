package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code cjson} library redis gives scripts (lua-cjson 2.1): encode and decode with its rules, the ones scripts
 * rely on: numbers written as "%.14g" (NaN and infinities refused), "/" escaped, a table an array when its keys are
 * 1..n (not too sparse: a largest key over twice the count and over 10 is refused), an empty table {}, cjson.null for
 * JSON's null. Its depth limits and encode_invalid_numbers hold for the run that sets them (in redis, until the Lua
 * state is reset); its other settings are accepted and change nothing. Error texts are close to lua-cjson's.
 */
final class CjsonLib
{
    /** JSON's null: one value, as lua-cjson's lightuserdata. */
    static final LuaValue NULL = new LuaUserdata(new Object());
    private static final int MAX_DEPTH = 1000;

    private int encodeMaxDepth = MAX_DEPTH;
    private int decodeMaxDepth = MAX_DEPTH;
    private boolean invalidNumbers;

    /** @return the library's table, unlocked: its settings are this object's, one run's. */
    LuaTable table()
    {
        final LuaTable cjson = new LuaTable();
        cjson.rawset("encode", RedisApi.function(args ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            encode(args.arg1(), out, 1);
            return LuaString.valueUsing(out.toByteArray());
        }));
        cjson.rawset("decode", RedisApi.function(args -> new Decoder(LuaToResp.bytes(args.checkstring(1)),
            decodeMaxDepth).document()));
        cjson.rawset("null", NULL);
        cjson.rawset("encode_max_depth", RedisApi.function(args ->
        {
            encodeMaxDepth = args.optint(1, encodeMaxDepth);
            return LuaValue.valueOf(encodeMaxDepth);
        }));
        cjson.rawset("decode_max_depth", RedisApi.function(args ->
        {
            decodeMaxDepth = args.optint(1, decodeMaxDepth);
            return LuaValue.valueOf(decodeMaxDepth);
        }));
        cjson.rawset("encode_invalid_numbers", RedisApi.function(args ->
        {
            invalidNumbers = args.isnoneornil(1) ? invalidNumbers : args.arg1().toboolean();
            return LuaValue.valueOf(invalidNumbers);
        }));
        for (final String setting : new String[]{"encode_keep_buffer", "encode_number_precision",
            "encode_sparse_array", "decode_invalid_numbers"})
        {
            cjson.rawset(setting, RedisApi.function(args -> args));
        }
        return cjson;
    }

    private void encode(final LuaValue value, final ByteArrayOutputStream out, final int depth)
    {
        switch (value.type())
        {
            case LuaValue.TNIL -> out.writeBytes("null".getBytes(StandardCharsets.US_ASCII));
            case LuaValue.TBOOLEAN -> out.writeBytes(value.toboolean() ? "true".getBytes(StandardCharsets.US_ASCII) :
                "false".getBytes(StandardCharsets.US_ASCII));
            case LuaValue.TNUMBER -> out.writeBytes(number(value.todouble()).getBytes(StandardCharsets.US_ASCII));
            case LuaValue.TSTRING -> string(LuaToResp.bytes(value), out);
            case LuaValue.TTABLE -> table((LuaTable)value, out, depth);
            default ->
            {
                if (value == NULL)
                {
                    out.writeBytes("null".getBytes(StandardCharsets.US_ASCII));
                    return;
                }
                throw new LuaError("Cannot serialise " + value.typename() + ": type not supported");
            }
        }
    }

    private void table(final LuaTable table, final ByteArrayOutputStream out, final int depth)
    {
        if (depth > encodeMaxDepth)
        {
            throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        }
        int count = 0;
        double max = 0;
        boolean array = true;
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            final LuaValue key = next.arg1();
            count++;
            if (key.type() == LuaValue.TNUMBER && key.todouble() >= 1 && key.todouble() == Math.floor(key.todouble()))
            {
                max = Math.max(max, key.todouble());
            }
            else
            {
                array = false;
            }
        }
        if (array && count > 0)
        {
            if (max > 2.0 * count && max > 10)
            {
                throw new LuaError("Cannot serialise table: excessively sparse array");
            }
            out.write('[');
            for (int i = 1; i <= (int)max; i++)
            {
                if (i > 1)
                {
                    out.write(',');
                }
                encode(table.rawget(i), out, depth + 1);
            }
            out.write(']');
            return;
        }
        out.write('{');
        boolean first = true;
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            final LuaValue key = next.arg1();
            if (!first)
            {
                out.write(',');
            }
            first = false;
            if (key.type() == LuaValue.TNUMBER)
            {
                string(number(key.todouble()).getBytes(StandardCharsets.US_ASCII), out);
            }
            else if (key.type() == LuaValue.TSTRING)
            {
                string(LuaToResp.bytes(key), out);
            }
            else
            {
                throw new LuaError("Cannot serialise table: table key must be a number or string");
            }
            out.write(':');
            encode(next.arg(2), out, depth + 1);
        }
        out.write('}');
    }

    private static void string(final byte[] bytes, final ByteArrayOutputStream out)
    {
        out.write('"');
        for (final byte b : bytes)
        {
            switch (b)
            {
                case '"' -> out.writeBytes(new byte[]{'\\', '"'});
                case '\\' -> out.writeBytes(new byte[]{'\\', '\\'});
                case '/' -> out.writeBytes(new byte[]{'\\', '/'});
                case '\b' -> out.writeBytes(new byte[]{'\\', 'b'});
                case '\f' -> out.writeBytes(new byte[]{'\\', 'f'});
                case '\n' -> out.writeBytes(new byte[]{'\\', 'n'});
                case '\r' -> out.writeBytes(new byte[]{'\\', 'r'});
                case '\t' -> out.writeBytes(new byte[]{'\\', 't'});
                default ->
                {
                    if (b >= 0 && b < 0x20 || b == 0x7f)
                    {
                        out.writeBytes(String.format("\\u%04x", b).getBytes(StandardCharsets.US_ASCII));
                    }
                    else
                    {
                        out.write(b);
                    }
                }
            }
        }
        out.write('"');
    }

    /** @return the number as lua-cjson writes it: C's "%.14g", NaN and infinities refused unless allowed. */
    private String number(final double value)
    {
        if (!invalidNumbers && (Double.isNaN(value) || Double.isInfinite(value)))
        {
            throw new LuaError("Cannot serialise number: must not be NaN or Inf");
        }
        return LuaNumbers.format(value);
    }

    /** JSON text made Lua values, as lua-cjson's decode does. */
    private static final class Decoder
    {
        private final byte[] text;
        private final int maxDepth;
        private int at;

        Decoder(final byte[] text, final int maxDepth)
        {
            this.text = text;
            this.maxDepth = maxDepth;
        }

        LuaValue document()
        {
            final LuaValue value = value(1);
            skipSpace();
            if (at < text.length)
            {
                throw error("the end", "invalid token");
            }
            return value;
        }

        private LuaValue value(final int depth)
        {
            skipSpace();
            if (depth > maxDepth)
            {
                throw new LuaError("Found too many nested data structures (" + depth + ") at character " + (at + 1));
            }
            if (at >= text.length)
            {
                throw error("value", "the end");
            }
            final byte b = text[at];
            return switch (b)
            {
                case '{' -> object(depth);
                case '[' -> array(depth);
                case '"' -> LuaString.valueUsing(string());
                case 't' -> word("true", LuaValue.TRUE);
                case 'f' -> word("false", LuaValue.FALSE);
                case 'n' -> word("null", NULL);
                default -> number();
            };
        }

        private LuaValue object(final int depth)
        {
            at++;
            final LuaTable table = new LuaTable();
            skipSpace();
            if (at < text.length && text[at] == '}')
            {
                at++;
                return table;
            }
            while (true)
            {
                skipSpace();
                if (at >= text.length || text[at] != '"')
                {
                    throw error("object key string", "invalid token");
                }
                final LuaString key = LuaString.valueUsing(string());
                expect(':', "colon");
                table.rawset(key, value(depth + 1));
                skipSpace();
                if (at < text.length && text[at] == ',')
                {
                    at++;
                    continue;
                }
                expect('}', "comma or object end");
                return table;
            }
        }

        private LuaValue array(final int depth)
        {
            at++;
            final LuaTable table = new LuaTable();
            skipSpace();
            if (at < text.length && text[at] == ']')
            {
                at++;
                return table;
            }
            for (int i = 1; ; i++)
            {
                table.rawset(i, value(depth + 1));
                skipSpace();
                if (at < text.length && text[at] == ',')
                {
                    at++;
                    continue;
                }
                expect(']', "comma or array end");
                return table;
            }
        }

        private byte[] string()
        {
            at++;
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (at < text.length && text[at] != '"')
            {
                final byte b = text[at++];
                if (b != '\\')
                {
                    out.write(b);
                    continue;
                }
                if (at >= text.length)
                {
                    break;
                }
                final byte escape = text[at++];
                switch (escape)
                {
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> unicode(out);
                    default -> out.write(escape);
                }
            }
            if (at >= text.length)
            {
                throw error("string end", "the end");
            }
            at++;
            return out.toByteArray();
        }

        private void unicode(final ByteArrayOutputStream out)
        {
            int code = hex4();
            if (code >= 0xD800 && code < 0xDC00 && at + 1 < text.length && text[at] == '\\' && text[at + 1] == 'u')
            {
                at += 2;
                code = 0x10000 + ((code - 0xD800) << 10) + (hex4() - 0xDC00);
            }
            out.writeBytes(new String(Character.toChars(code)).getBytes(StandardCharsets.UTF_8));
        }

        private int hex4()
        {
            if (at + 4 > text.length)
            {
                throw error("unicode escape code", "invalid escape code");
            }
            try
            {
                final int code = Integer.parseInt(new String(text, at, 4, StandardCharsets.US_ASCII), 16);
                at += 4;
                return code;
            }
            catch (final NumberFormatException ex)
            {
                throw error("unicode escape code", "invalid escape code");
            }
        }

        private LuaValue number()
        {
            final int from = at;
            while (at < text.length && "+-0123456789.eE".indexOf(text[at]) >= 0)
            {
                at++;
            }
            try
            {
                return LuaValue.valueOf(Double.parseDouble(new String(text, from, at - from,
                    StandardCharsets.US_ASCII)));
            }
            catch (final NumberFormatException ex)
            {
                at = from;
                throw error("value", "invalid token");
            }
        }

        private LuaValue word(final String word, final LuaValue value)
        {
            final byte[] expected = word.getBytes(StandardCharsets.US_ASCII);
            if (at + expected.length > text.length ||
                !new String(text, at, expected.length, StandardCharsets.US_ASCII).equals(word))
            {
                throw error("value", "invalid token");
            }
            at += expected.length;
            return value;
        }

        private void expect(final char c, final String what)
        {
            skipSpace();
            if (at >= text.length || text[at] != c)
            {
                throw error(what, at >= text.length ? "the end" : "invalid token");
            }
            at++;
        }

        private void skipSpace()
        {
            while (at < text.length && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
            {
                at++;
            }
        }

        private LuaError error(final String expected, final String found)
        {
            return new LuaError("Expected " + expected + " but found " + found + " at character " + (at + 1));
        }
    }
}
