package io.dkv.compute.script;

import io.netty.buffer.ByteBuf;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.nio.charset.StandardCharsets;

/**
 * A command's reply, as the node wrote it in RESP2 or RESP3, made the Lua value redis.call returns, as redis 7.0's
 * redisProtocolToLuaType does: an integer a number, a bulk string a string, a nil bulk or nil array false, an array a
 * table, a status {ok=...}, an error {err=...}; in RESP3 a map {map={...}}, a set {set={member=true}}, a null nil, a
 * boolean a boolean, a double {double=n}, a big number {big_number=s}, a verbatim string
 * {verbatim_string={format=f, string=s}}; attributes are skipped. The replies are the node's own, so they are read
 * without checks.
 */
final class RespToLua
{
    private static final LuaString OK = LuaValue.valueOf("ok");
    private static final LuaString ERR = LuaValue.valueOf("err");

    private RespToLua()
    {
    }

    /** @return the value of the reply at the buffer's reader index, which moves past it. */
    static LuaValue read(final ByteBuf reply)
    {
        final byte type = reply.readByte();
        return switch (type)
        {
            case '+' -> single(OK, line(reply));
            case '-' -> error(line(reply));
            case ':' -> LuaValue.valueOf((double)Long.parseLong(text(line(reply))));
            case '$' -> bulk(reply);
            case '*' -> array(reply);
            case '%' -> map(reply);
            case '~' -> set(reply);
            case '_' ->
            {
                line(reply);
                yield LuaValue.NIL;
            }
            case '#' -> LuaValue.valueOf(line(reply)[0] == 't');
            case ',' -> single(LuaValue.valueOf("double"), LuaValue.valueOf(parseDouble(text(line(reply)))));
            case '(' -> single(LuaValue.valueOf("big_number"), line(reply));
            case '=' -> verbatim(reply);
            case '|' -> attributed(reply);
            default -> throw new IllegalStateException("a reply of the node's begins with '" + (char)type + "'");
        };
    }

    /**
     * @return {err=...} from an error line without its '-', as luaPushErrorBuff makes it: the line when it has a code
     * and a message, else ERR before it; marked counted, as the command's error was.
     */
    static LuaTable error(final byte[] line)
    {
        byte[] error = null;
        for (final byte b : line)
        {
            if (b == ' ')
            {
                error = line;
                break;
            }
        }
        if (error == null)
        {
            error = new byte[line.length + 4];
            System.arraycopy("ERR ".getBytes(StandardCharsets.US_ASCII), 0, error, 0, 4);
            System.arraycopy(line, 0, error, 4, line.length);
        }
        return ScriptErrors.counted(single(ERR, error));
    }

    private static LuaValue bulk(final ByteBuf reply)
    {
        final int length = Integer.parseInt(text(line(reply)));
        if (length < 0)
        {
            return LuaValue.FALSE;
        }
        final byte[] bytes = new byte[length];
        reply.readBytes(bytes);
        reply.skipBytes(2);
        return LuaString.valueUsing(bytes);
    }

    private static LuaValue array(final ByteBuf reply)
    {
        final int length = Integer.parseInt(text(line(reply)));
        if (length < 0)
        {
            return LuaValue.FALSE;
        }
        final LuaTable table = new LuaTable(length, 0);
        for (int i = 1; i <= length; i++)
        {
            table.rawset(i, read(reply));
        }
        return table;
    }

    private static LuaValue map(final ByteBuf reply)
    {
        final int pairs = Integer.parseInt(text(line(reply)));
        final LuaTable map = new LuaTable();
        for (int i = 0; i < pairs; i++)
        {
            final LuaValue key = read(reply);
            final LuaValue value = read(reply);
            if (!key.isnil())
            {
                map.rawset(key, value);
            }
        }
        return single(LuaValue.valueOf("map"), map);
    }

    private static LuaValue set(final ByteBuf reply)
    {
        final int length = Integer.parseInt(text(line(reply)));
        final LuaTable set = new LuaTable();
        for (int i = 0; i < length; i++)
        {
            final LuaValue member = read(reply);
            if (!member.isnil())
            {
                set.rawset(member, LuaValue.TRUE);
            }
        }
        return single(LuaValue.valueOf("set"), set);
    }

    private static LuaValue verbatim(final ByteBuf reply)
    {
        final int length = Integer.parseInt(text(line(reply)));
        final byte[] bytes = new byte[length];
        reply.readBytes(bytes);
        reply.skipBytes(2);
        final LuaTable verbatim = new LuaTable();
        verbatim.rawset("string", LuaString.valueOf(bytes, 4, length - 4));
        verbatim.rawset("format", LuaString.valueOf(bytes, 0, 3));
        return single(LuaValue.valueOf("verbatim_string"), verbatim);
    }

    private static LuaValue attributed(final ByteBuf reply)
    {
        final int pairs = Integer.parseInt(text(line(reply)));
        for (int i = 0; i < 2 * pairs; i++)
        {
            read(reply);
        }
        return read(reply);
    }

    private static LuaTable single(final LuaValue field, final byte[] value)
    {
        return single(field, LuaString.valueUsing(value));
    }

    private static LuaTable single(final LuaValue field, final LuaValue value)
    {
        final LuaTable table = new LuaTable();
        table.rawset(field, value);
        return table;
    }

    private static double parseDouble(final String text)
    {
        return switch (text)
        {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "nan", "-nan" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    /** @return the bytes up to the next CRLF, which the reader index moves past. */
    private static byte[] line(final ByteBuf reply)
    {
        final int end = reply.indexOf(reply.readerIndex(), reply.writerIndex(), (byte)'\r');
        final byte[] line = new byte[end - reply.readerIndex()];
        reply.readBytes(line);
        reply.skipBytes(2);
        return line;
    }

    private static String text(final byte[] line)
    {
        return new String(line, StandardCharsets.ISO_8859_1);
    }
}
