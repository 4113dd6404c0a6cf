package io.dkv.compute.resp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline request line into arguments as redis-server's {@code sdssplitargs} does: spaces separate them,
 * "double quotes" take escapes (\n, \r, \t, \b, \a, \\, \", \xHH) and 'single quotes' take \' only; a closing quote
 * must be followed by a space or the end of the line.
 */
final class InlineSplitter
{
    private InlineSplitter()
    {
    }

    /** @return the arguments, or null for unbalanced quotes. */
    static List<byte[]> split(final byte[] line)
    {
        final List<byte[]> args = new ArrayList<>();
        int p = 0;
        final int n = line.length;
        while (true)
        {
            while (p < n && isSpace(line[p]))
            {
                p++;
            }
            if (p >= n)
            {
                return args;
            }
            final ByteArrayOutputStream current = new ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done)
            {
                if (inDouble)
                {
                    if (p >= n)
                    {
                        return null;
                    }
                    if (line[p] == '\\' && p + 3 < n && line[p + 1] == 'x' && isHex(line[p + 2]) && isHex(line[p + 3]))
                    {
                        current.write(Character.digit(line[p + 2], 16) * 16 + Character.digit(line[p + 3], 16));
                        p += 3;
                    }
                    else if (line[p] == '\\' && p + 1 < n)
                    {
                        p++;
                        current.write(switch (line[p])
                        {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> line[p];
                        });
                    }
                    else if (line[p] == '"')
                    {
                        if (p + 1 < n && !isSpace(line[p + 1]))
                        {
                            return null;
                        }
                        done = true;
                    }
                    else
                    {
                        current.write(line[p]);
                    }
                }
                else if (inSingle)
                {
                    if (p >= n)
                    {
                        return null;
                    }
                    if (line[p] == '\\' && p + 1 < n && line[p + 1] == '\'')
                    {
                        p++;
                        current.write('\'');
                    }
                    else if (line[p] == '\'')
                    {
                        if (p + 1 < n && !isSpace(line[p + 1]))
                        {
                            return null;
                        }
                        done = true;
                    }
                    else
                    {
                        current.write(line[p]);
                    }
                }
                else if (p >= n)
                {
                    done = true;
                }
                else
                {
                    switch (line[p])
                    {
                        case ' ', '\n', '\r', '\t', 0 -> done = true;
                        case '"' -> inDouble = true;
                        case '\'' -> inSingle = true;
                        default -> current.write(line[p]);
                    }
                }
                if (p < n)
                {
                    p++;
                }
            }
            args.add(current.toByteArray());
        }
    }

    private static boolean isSpace(final byte b)
    {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t' || b == 0x0b || b == '\f';
    }

    private static boolean isHex(final byte b)
    {
        return Character.digit(b, 16) >= 0;
    }
}
