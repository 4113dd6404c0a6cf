package io.dkv.compute.script;

import io.dkv.compute.command.Scores;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.nio.charset.StandardCharsets;

/**
 * A script's return value made the caller's reply, as redis 7.0's luaReplyToRedisReply does: a string a bulk string, a
 * number an integer (truncated), true 1 and false nil (or RESP3 booleans after redis.setresp(3)), a table with an err
 * or ok string an error or a status, with a double, big_number, verbatim_string, map or set field that RESP3 type (or
 * its RESP2 form), any other table an array cut at its first nil, anything else nil.
 */
final class LuaToResp
{
    /** Tables nested deeper than this (one that holds itself) answer an error in their place. */
    private static final int MAX_DEPTH = 512;
    private static final LuaString ERR = LuaValue.valueOf("err");
    private static final LuaString OK = LuaValue.valueOf("ok");
    private static final LuaString DOUBLE = LuaValue.valueOf("double");
    private static final LuaString BIG_NUMBER = LuaValue.valueOf("big_number");
    private static final LuaString VERBATIM = LuaValue.valueOf("verbatim_string");
    private static final LuaString FORMAT = LuaValue.valueOf("format");
    private static final LuaString STRING = LuaValue.valueOf("string");
    private static final LuaString MAP = LuaValue.valueOf("map");
    private static final LuaString SET = LuaValue.valueOf("set");

    private LuaToResp()
    {
    }

    /**
     * @param protocol       the caller's protocol, 2 or 3.
     * @param scriptProtocol the script's (redis.setresp), which decides how booleans go.
     */
    static void write(final ByteBuf out, final LuaValue value, final int protocol, final int scriptProtocol)
    {
        write(out, value, protocol, scriptProtocol, 0);
    }

    private static void write(final ByteBuf out, final LuaValue value, final int protocol, final int scriptProtocol,
        final int depth)
    {
        switch (value.type())
        {
            case LuaValue.TSTRING -> RespReplies.bulk(out, bytes(value));
            case LuaValue.TNUMBER -> RespReplies.integer(out, (long)value.todouble());
            case LuaValue.TBOOLEAN -> bool(out, value.toboolean(), protocol, scriptProtocol);
            case LuaValue.TTABLE ->
            {
                if (depth >= MAX_DEPTH)
                {
                    RespReplies.error(out, "ERR reached lua stack limit");
                    return;
                }
                table(out, (LuaTable)value, protocol, scriptProtocol, depth + 1);
            }
            default -> RespReplies.nullReply(out, protocol);
        }
    }

    private static void bool(final ByteBuf out, final boolean value, final int protocol, final int scriptProtocol)
    {
        if (scriptProtocol == 2)
        {
            if (value)
            {
                RespReplies.integer(out, 1);
            }
            else
            {
                RespReplies.nullReply(out, protocol);
            }
        }
        else if (protocol == 2)
        {
            RespReplies.integer(out, value ? 1 : 0);
        }
        else
        {
            out.writeCharSequence(value ? "#t\r\n" : "#f\r\n", StandardCharsets.US_ASCII);
        }
    }

    private static void table(final ByteBuf out, final LuaTable table, final int protocol, final int scriptProtocol,
        final int depth)
    {
        final LuaValue err = table.rawget(ERR);
        if (err.type() == LuaValue.TSTRING)
        {
            final byte[] message = bytes(err);
            out.writeByte('-');
            writeLine(out, message);
            return;
        }
        final LuaValue ok = table.rawget(OK);
        if (ok.type() == LuaValue.TSTRING)
        {
            out.writeByte('+');
            writeLine(out, bytes(ok));
            return;
        }
        final LuaValue number = table.rawget(DOUBLE);
        if (number.type() == LuaValue.TNUMBER)
        {
            final String text = Scores.format(number.todouble());
            if (protocol == 3)
            {
                out.writeByte(',');
                writeLine(out, text.getBytes(StandardCharsets.US_ASCII));
            }
            else
            {
                RespReplies.bulk(out, text);
            }
            return;
        }
        final LuaValue big = table.rawget(BIG_NUMBER);
        if (big.type() == LuaValue.TSTRING)
        {
            if (protocol == 3)
            {
                out.writeByte('(');
                writeLine(out, bytes(big));
            }
            else
            {
                RespReplies.bulk(out, bytes(big));
            }
            return;
        }
        if (verbatim(out, table.rawget(VERBATIM), protocol))
        {
            return;
        }
        final LuaValue map = table.rawget(MAP);
        if (map.type() == LuaValue.TTABLE)
        {
            final LuaTable entries = (LuaTable)map;
            RespReplies.mapHeader(out, count(entries), protocol);
            for (Varargs next = entries.next(LuaValue.NIL); !next.arg1().isnil(); next = entries.next(next.arg1()))
            {
                write(out, next.arg1(), protocol, scriptProtocol, depth);
                write(out, next.arg(2), protocol, scriptProtocol, depth);
            }
            return;
        }
        final LuaValue set = table.rawget(SET);
        if (set.type() == LuaValue.TTABLE)
        {
            final LuaTable members = (LuaTable)set;
            RespReplies.setHeader(out, count(members), protocol);
            for (Varargs next = members.next(LuaValue.NIL); !next.arg1().isnil(); next = members.next(next.arg1()))
            {
                write(out, next.arg1(), protocol, scriptProtocol, depth);
            }
            return;
        }
        int length = 0;
        while (!table.rawget(length + 1).isnil())
        {
            length++;
        }
        RespReplies.arrayHeader(out, length);
        for (int i = 1; i <= length; i++)
        {
            write(out, table.rawget(i), protocol, scriptProtocol, depth);
        }
    }

    private static boolean verbatim(final ByteBuf out, final LuaValue verbatim, final int protocol)
    {
        if (verbatim.type() != LuaValue.TTABLE)
        {
            return false;
        }
        final LuaValue format = verbatim.rawget(FORMAT);
        final LuaValue text = verbatim.rawget(STRING);
        if (format.type() != LuaValue.TSTRING || text.type() != LuaValue.TSTRING)
        {
            return false;
        }
        final byte[] body = bytes(text);
        if (protocol != 3)
        {
            RespReplies.bulk(out, body);
            return true;
        }
        final byte[] kind = bytes(format);
        out.writeByte('=');
        out.writeCharSequence(Integer.toString(body.length + 4), StandardCharsets.US_ASCII);
        out.writeCharSequence("\r\n", StandardCharsets.US_ASCII);
        for (int i = 0; i < 3; i++)
        {
            out.writeByte(i < kind.length ? kind[i] : ' ');
        }
        out.writeByte(':');
        out.writeBytes(body);
        out.writeCharSequence("\r\n", StandardCharsets.US_ASCII);
        return true;
    }

    private static int count(final LuaTable table)
    {
        int count = 0;
        for (Varargs next = table.next(LuaValue.NIL); !next.arg1().isnil(); next = table.next(next.arg1()))
        {
            count++;
        }
        return count;
    }

    /** A status's or an error's text, its line breaks made spaces as redis does, then CRLF. */
    private static void writeLine(final ByteBuf out, final byte[] text)
    {
        for (final byte b : text)
        {
            out.writeByte(b == '\r' || b == '\n' ? ' ' : b);
        }
        out.writeCharSequence("\r\n", StandardCharsets.US_ASCII);
    }

    /** @return a Lua string's bytes (a number's as Lua writes it). */
    static byte[] bytes(final LuaValue value)
    {
        final LuaString string = value.checkstring();
        final byte[] bytes = new byte[string.length()];
        string.copyInto(0, bytes, 0, bytes.length);
        return bytes;
    }
}
