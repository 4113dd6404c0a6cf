package io.dkv.compute.script;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Errors as redis 7.0's scripts see and answer them: the {err=...} tables its API raises (luaPushError: a message
 * without a code gets ERR), LuaJ's messages in Lua 5.1's form ("user_script:1: ..."), and the reply of a script that
 * failed, with the script's name and the line it failed on.
 */
final class ScriptErrors
{
    private static final LuaString ERR = LuaValue.valueOf("err");
    private static final LuaString IGNORE_STATS = LuaValue.valueOf("ignore_error_stats_update");
    private static final Pattern CALL = Pattern.compile("attempt to call (nil|boolean|number|string|table|userdata)$");
    /** LuaJ writes a position as "@user_script:1 message" and ends it with the (empty) traceback's line break. */
    private static final Pattern UNEXPECTED = Pattern.compile("unexpected symbol (\\d+) \\(.\\)$");
    /** LuaJ's tokens from 257 on, as Lua's lexer names them. */
    private static final int FIRST_RESERVED = 257;
    private static final List<String> TOKENS = List.of("and", "break", "do", "else", "elseif", "end", "false", "for",
        "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until",
        "while", "..", "...", "==", ">=", "<=", "~=", "::", "<eof>");
    private static final Pattern CR_LF = Pattern.compile("^[\\r\\n]+|[\\r\\n]+$");
    private static final Pattern POSITION = Pattern.compile("^@(user_script|user_function|[^: ]+):(\\d+) ");

    private ScriptErrors()
    {
    }

    /** @return {err=...} for {@code message}: "-CODE text" keeps its code, anything else gets ERR. */
    static LuaTable table(final String message)
    {
        String code = "ERR";
        String text = message;
        if (message.startsWith("-"))
        {
            final int space = message.indexOf(' ');
            code = space < 0 ? "ERR" : message.substring(1, space);
            text = space < 0 ? message.substring(1) : message.substring(space + 1);
        }
        final LuaTable table = new LuaTable();
        table.rawset(ERR, LuaValue.valueOf(code + " " + CR_LF.matcher(text).replaceAll("")));
        return table;
    }

    /**
     * @return the error table marked as redis marks the errors its commands counted already
     * (ignore_error_stats_update), so that a script passing one on does not count it again.
     */
    static LuaTable counted(final LuaTable error)
    {
        error.rawset(IGNORE_STATS, LuaValue.TRUE);
        return error;
    }

    /** @return true for an error table whose error was counted already ({@link #counted}). */
    static boolean isCounted(final LuaValue value)
    {
        return value instanceof LuaTable table && table.rawget(ERR).isstring() &&
            table.rawget(IGNORE_STATS).toboolean();
    }

    /** @return an error to throw, raising {@link #table} of the message. */
    static LuaError raise(final String message)
    {
        return new LuaError(table(message));
    }

    /** @return what a pcall gives back for {@code error}: the err string of a table, or the message as Lua 5.1's. */
    static LuaValue caught(final LuaError error)
    {
        final LuaValue object = error.getMessageObject();
        if (object instanceof LuaTable table)
        {
            final LuaValue err = table.rawget(ERR);
            return err.isstring() ? err : table;
        }
        return object == null ? LuaValue.NIL : LuaValue.valueOf(text(object.tojstring()));
    }

    /**
     * @return a compile error in Lua 5.1's words: LuaJ names an unexpected token by its number ("unexpected symbol
     * 286 (...)") where Lua says "unexpected symbol near '<eof>'".
     */
    static String compileError(final String message)
    {
        final Matcher token = UNEXPECTED.matcher(text(message));
        if (!token.find())
        {
            return text(message);
        }
        final int number = Integer.parseInt(token.group(1));
        final String near = number < FIRST_RESERVED ? String.valueOf((char)number) :
            number - FIRST_RESERVED < TOKENS.size() ? TOKENS.get(number - FIRST_RESERVED) : null;
        return near == null ? text(message) : token.replaceFirst("unexpected symbol near '" +
            Matcher.quoteReplacement(near) + "'");
    }

    /** @return LuaJ's message in Lua 5.1's form: "user_script:1: message", no trailing line break. */
    static String text(final String message)
    {
        final String trimmed = message.endsWith("\n") ? message.substring(0, message.length() - 1) : message;
        final String placed = POSITION.matcher(trimmed).replaceFirst("$1:$2: ");
        return CALL.matcher(placed).replaceFirst("attempt to call a $1 value");
    }

    /**
     * @param error    what the script raised.
     * @param funcname the script's sha or the function's name.
     * @param source   where it failed ("@user_script"), or null when not known.
     * @param line     the line it failed on.
     * @return the error reply without its '-', as redis's luaCallFunction writes it.
     */
    static String reply(final LuaError error, final String funcname, final String source, final int line)
    {
        final LuaValue object = error.getMessageObject();
        final String message;
        if (object instanceof LuaTable table)
        {
            final LuaValue err = table.rawget(ERR);
            message = err.isstring() ? err.tojstring() : "ERR " + table.tojstring();
        }
        else if (object == null)
        {
            message = "ERR execution failure";
        }
        else
        {
            final String raw = object.tojstring();
            // a library function's error in a tail call: LuaJ left the caller's frame, Lua names its line
            final boolean placed = POSITION.matcher(raw).find() || error instanceof LockedTable.UnplacedError;
            message = "ERR " + (placed || source == null ? "" : source.substring(1) + ":" + line + ": ") + text(raw);
        }
        return source == null ? message : message + " script: " + funcname + ", on " + source + ":" + line + ".";
    }
}
