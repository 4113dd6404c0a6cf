package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The {@code cjson} library redis gives scripts (lua-cjson 2.1): encode and decode with its rules, the ones scripts
 * rely on: numbers written as "%.14g" (NaN and infinities refused), "/" escaped, a table an array when its keys are
 * 1..n (not too sparse: a largest key over twice the count and over 10 is refused), an empty table {}, cjson.null for
 * JSON's null. Its settings (encode_keep_buffer...) are accepted and change nothing. Error texts are close to
 * lua-cjson's, not always the same.
 */
final class CjsonLib
{
    /** JSON's null: one value, as lua-cjson's lightuserdata. */
    static final LuaValue NULL = new LuaUserdata(new Object());
    private static final int MAX_DEPTH = 1000;
    private static final MathContext FOURTEEN = new MathContext(14, RoundingMode.HALF_EVEN);

    private CjsonLib()
    {
    }

    /** @return the library's table, unlocked. */
    static LuaTable table()
    {
        final LuaTable cjson = new LuaTable();
        cjson.rawset("encode", RedisApi.function(args ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            encode(args.arg1(), out, 1);
            return LuaString.valueUsing(out.toByteArray());
        }));
        cjson.rawset("decode", RedisApi.function(args -> new Decoder(LuaToResp.bytes(args.checkstring(1))).document()));
        cjson.rawset("null", NULL);
        for (final String setting : new String[]{"encode_keep_buffer", "encode_max_depth", "decode_max_depth",
            "encode_number_precision", "encode_sparse_array", "encode_invalid_numbers", "decode_invalid_numbers"})
        {
            cjson.rawset(setting, RedisApi.function(args -> args));
        }
        return cjson;
    }

    private static void encode(final LuaValue value, final ByteArrayOutputStream out, final int depth)
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

    private static void table(final LuaTable table, final ByteArrayOutputStream out, final int depth)
    {
        if (depth > MAX_DEPTH)
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

    /** @return the number as lua-cjson writes it: C's "%.14g". */
    static String number(final double value)
    {
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            throw new LuaError("Cannot serialise number: must not be NaN or Inf");
        }
        if (value == 0)
        {
            return 1 / value < 0 ? "-0" : "0";
        }
        final BigDecimal rounded = new BigDecimal(value).round(FOURTEEN);
        final int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 14)
        {
            final String mantissa = strip(rounded.movePointLeft(exponent).toPlainString());
            final int magnitude = Math.abs(exponent);
            return mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + magnitude;
        }
        return strip(rounded.toPlainString());
    }

    private static String strip(final String decimal)
    {
        if (decimal.indexOf('.') < 0)
        {
            return decimal;
        }
        String stripped = decimal.replaceAll("0+$", "");
        if (stripped.endsWith("."))
        {
            stripped = stripped.substring(0, stripped.length() - 1);
        }
        return stripped;
    }

    /** JSON text made Lua values, as lua-cjson's decode does. */
    private static final class Decoder
    {
        private final byte[] text;
        private int at;

        Decoder(final byte[] text)
        {
            this.text = text;
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
            if (depth > MAX_DEPTH)
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
