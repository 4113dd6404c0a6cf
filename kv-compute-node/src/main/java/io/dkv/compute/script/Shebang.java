package io.dkv.compute.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The first line of a script ({@code #!lua flags=no-writes,...}) and of a library ({@code #!lua name=mylib}), read as
 * redis 7.0 reads them (evalExtractShebangFlags, functionExtractLibMetaData) with its errors. The code runs from the
 * line break on, so that its line numbers are the user's.
 */
final class Shebang
{
    /** Redis's script flags, each the bit of its index here ({@link #flag}). */
    static final List<String> FLAG_NAMES = List.of("no-writes", "allow-oom", "allow-stale", "no-cluster",
        "allow-cross-slot-keys");
    static final int NO_WRITES = 1;
    /** A script without a shebang: EVAL as before redis 7, whose commands' writes are checked one by one. */
    static final int EVAL_COMPAT = 1 << FLAG_NAMES.size();

    /** A script's flags and where its code begins, or the error that refused it. */
    record Script(int flags, int codeFrom, String error)
    {
    }

    /** A library's name and where its code begins, or the error that refused it. */
    record Library(String name, int codeFrom, String error)
    {
    }

    private Shebang()
    {
    }

    /** @return the flag of a name ("no-writes"...), or 0 when it is none. */
    static int flag(final String name)
    {
        final int index = FLAG_NAMES.indexOf(name);
        return index < 0 ? 0 : 1 << index;
    }

    static Script script(final byte[] body)
    {
        if (body.length < 2 || body[0] != '#' || body[1] != '!')
        {
            return new Script(EVAL_COMPAT, 0, null);
        }
        final int end = lineEnd(body);
        if (end < 0)
        {
            return new Script(0, 0, "Invalid script shebang");
        }
        final String[] parts = parts(body, end);
        if (parts.length == 0)
        {
            return new Script(0, 0, "Invalid engine in script shebang");
        }
        if (!parts[0].equals("#!lua"))
        {
            return new Script(0, 0, "Unexpected engine in script shebang: " + parts[0]);
        }
        int flags = 0;
        for (int i = 1; i < parts.length; i++)
        {
            if (!parts[i].startsWith("flags="))
            {
                return new Script(0, 0, "Unknown lua shebang option: " + parts[i]);
            }
            final String list = parts[i].substring(6);
            for (final String name : list.isEmpty() ? new String[0] : list.split(",", -1))
            {
                final int flag = flag(name);
                if (flag == 0)
                {
                    return new Script(0, 0, "Unexpected flag in script shebang: " + name);
                }
                flags |= flag;
            }
        }
        return new Script(flags, end, null);
    }

    static Library library(final byte[] code)
    {
        if (code.length < 2 || code[0] != '#' || code[1] != '!')
        {
            return new Library(null, 0, "Missing library metadata");
        }
        final int end = lineEnd(code);
        if (end < 0)
        {
            return new Library(null, 0, "Invalid library metadata");
        }
        final String[] parts = parts(code, end);
        if (parts.length == 0)
        {
            return new Library(null, 0, "Invalid library metadata");
        }
        String name = null;
        for (int i = 1; i < parts.length; i++)
        {
            if (!parts[i].toLowerCase(Locale.ROOT).startsWith("name="))
            {
                return new Library(null, 0, "Invalid metadata value given: " + parts[i]);
            }
            if (name != null)
            {
                return new Library(null, 0, "Invalid metadata value, name argument was given multiple times");
            }
            name = parts[i].substring(5);
        }
        if (name == null)
        {
            return new Library(null, 0, "Library name was not given");
        }
        if (!validName(name))
        {
            return new Library(null, 0, "Library names can only contain letters, numbers, or underscores(_) and " +
                "must be at least one character long");
        }
        final String engine = parts[0].substring(2);
        if (!engine.equalsIgnoreCase("lua"))
        {
            return new Library(null, 0, "Engine '" + engine + "' not found");
        }
        return new Library(name, end, null);
    }

    /** @return true for redis's names of libraries and functions: letters, digits and underscores, at least one. */
    static boolean validName(final String name)
    {
        if (name.isEmpty())
        {
            return false;
        }
        for (int i = 0; i < name.length(); i++)
        {
            final char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'))
            {
                return false;
            }
        }
        return true;
    }

    private static int lineEnd(final byte[] text)
    {
        for (int i = 0; i < text.length; i++)
        {
            if (text[i] == '\n')
            {
                return i;
            }
        }
        return -1;
    }

    /** @return the first line's words as redis's sdssplitargs splits them (quotes, escapes); none when malformed. */
    private static String[] parts(final byte[] text, final int end)
    {
        final String line = new String(text, 0, end, StandardCharsets.ISO_8859_1);
        final List<String> words = new ArrayList<>();
        int at = 0;
        while (true)
        {
            while (at < line.length() && Character.isWhitespace(line.charAt(at)))
            {
                at++;
            }
            if (at >= line.length())
            {
                return words.toArray(String[]::new);
            }
            final StringBuilder word = new StringBuilder();
            char quote = 0;
            while (true)
            {
                final char c = at < line.length() ? line.charAt(at) : 0;
                if (quote == 0)
                {
                    if (c == 0 || c == ' ' || c == '\n' || c == '\r' || c == '\t')
                    {
                        break;
                    }
                    if (c == '"' || c == '\'')
                    {
                        quote = c;
                    }
                    else
                    {
                        word.append(c);
                    }
                    at++;
                    continue;
                }
                if (c == 0)
                {
                    return new String[0];
                }
                if (c == quote)
                {
                    if (at + 1 < line.length() && !Character.isWhitespace(line.charAt(at + 1)))
                    {
                        return new String[0];
                    }
                    at++;
                    break;
                }
                at += escaped(line, at, quote, word);
            }
            words.add(word.toString());
        }
    }

    /** Append the character (or escape) at {@code at} inside quotes. @return how many characters it took. */
    private static int escaped(final String line, final int at, final char quote, final StringBuilder word)
    {
        final char c = line.charAt(at);
        final char next = at + 1 < line.length() ? line.charAt(at + 1) : 0;
        if (c != '\\' || next == 0 || quote == '\'' && next != '\'')
        {
            word.append(c);
            return 1;
        }
        if (quote == '"' && next == 'x' && at + 3 < line.length() && isHex(line.charAt(at + 2)) &&
            isHex(line.charAt(at + 3)))
        {
            word.append((char)Integer.parseInt(line.substring(at + 2, at + 4), 16));
            return 4;
        }
        word.append(switch (next)
        {
            case 'n' -> quote == '"' ? '\n' : next;
            case 'r' -> quote == '"' ? '\r' : next;
            case 't' -> quote == '"' ? '\t' : next;
            case 'b' -> quote == '"' ? '\b' : next;
            case 'a' -> quote == '"' ? (char)7 : next;
            default -> next;
        });
        return 2;
    }

    private static boolean isHex(final char c)
    {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
