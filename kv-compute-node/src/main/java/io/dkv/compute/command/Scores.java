package io.dkv.compute.command;

import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Sorted sets' scores as redis reads and writes them: C's {@code strtod} (decimal, hexadecimal, inf and infinity,
 * nan), redis's {@code string2d} over it for a score given (whole argument, no leading space, no overflow, no NaN) and
 * its looser range bounds, and {@code "%.17g"} for a score answered (a RESP2 bulk, a RESP3 double).
 */
public final class Scores
{
    private static final MathContext SEVENTEEN = new MathContext(17, RoundingMode.HALF_EVEN);

    private Scores()
    {
    }

    /** What {@code strtod} made of a text: the value, the characters it took, whether it overflowed or underflowed. */
    record Parsed(double value, int consumed, boolean outOfRange)
    {
    }

    /** @return the score, as redis's string2d reads it, or null where redis answers "not a valid float". */
    static Double parse(final byte[] argument)
    {
        final String text = new String(argument, StandardCharsets.ISO_8859_1);
        if (text.isEmpty() || Character.isWhitespace(text.charAt(0)))
        {
            return null;
        }
        final Parsed parsed = strtod(text, 0);
        if (parsed.consumed != text.length() || Double.isNaN(parsed.value) ||
            (parsed.outOfRange && (Double.isInfinite(parsed.value) || parsed.value == 0)))
        {
            return null;
        }
        return parsed.value;
    }

    /** One end of a score range ("1.5", "(1.5", "-inf"...): strtod of what follows "(" must take it all. */
    record Bound(double value, boolean exclusive)
    {
    }

    /** @return the bound, as redis's zslParseRange reads it, or null where redis answers "not a float". */
    static Bound bound(final byte[] argument)
    {
        final String text = new String(argument, StandardCharsets.ISO_8859_1);
        final boolean exclusive = !text.isEmpty() && text.charAt(0) == '(';
        final int from = exclusive ? 1 : 0;
        final Parsed parsed = strtod(text, from);
        if (from + parsed.consumed != text.length() || Double.isNaN(parsed.value))
        {
            return null;
        }
        return new Bound(parsed.value, exclusive);
    }

    /** C's strtod from {@code from}: leading white space, a sign, then a decimal, hexadecimal, inf or nan number. */
    static Parsed strtod(final String text, final int from)
    {
        int i = from;
        while (i < text.length() && isSpace(text.charAt(i)))
        {
            i++;
        }
        boolean negative = false;
        if (i < text.length() && (text.charAt(i) == '+' || text.charAt(i) == '-'))
        {
            negative = text.charAt(i) == '-';
            i++;
        }
        final String rest = text.substring(i).toLowerCase(java.util.Locale.ROOT);
        if (rest.startsWith("inf"))
        {
            final int length = rest.startsWith("infinity") ? 8 : 3;
            return new Parsed(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, i + length - from, false);
        }
        if (rest.startsWith("nan"))
        {
            int length = 3;
            if (rest.length() > 3 && rest.charAt(3) == '(')
            {
                final int close = rest.indexOf(')', 4);
                if (close > 0 &&
                    rest.substring(4, close).chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_'))
                {
                    length = close + 1;
                }
            }
            return new Parsed(Double.NaN, i + length - from, false);
        }
        if (rest.startsWith("0x") && rest.length() > 2 && (isHex(rest, 2) || (rest.charAt(2) == '.' && isHex(rest, 3))))
        {
            return hex(rest, i, from, negative);
        }
        return decimal(text, i, from, negative);
    }

    private static Parsed decimal(final String text, final int start, final int from, final boolean negative)
    {
        int i = start;
        boolean digits = false;
        boolean nonZero = false;
        while (i < text.length() && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128)
        {
            nonZero |= text.charAt(i) != '0';
            digits = true;
            i++;
        }
        if (i < text.length() && text.charAt(i) == '.')
        {
            int j = i + 1;
            boolean fraction = false;
            while (j < text.length() && text.charAt(j) >= '0' && text.charAt(j) <= '9')
            {
                nonZero |= text.charAt(j) != '0';
                fraction = true;
                j++;
            }
            if (fraction || digits)
            {
                digits = true;
                i = j;
            }
        }
        if (!digits)
        {
            return new Parsed(0, 0, false);
        }
        final int mantissaEnd = i;
        if (i < text.length() && (text.charAt(i) == 'e' || text.charAt(i) == 'E'))
        {
            int j = i + 1;
            if (j < text.length() && (text.charAt(j) == '+' || text.charAt(j) == '-'))
            {
                j++;
            }
            final int exponentDigits = j;
            while (j < text.length() && text.charAt(j) >= '0' && text.charAt(j) <= '9')
            {
                j++;
            }
            if (j > exponentDigits)
            {
                i = j;
            }
        }
        String number = text.substring(start, i);
        if (i > mantissaEnd && i - mantissaEnd > 12)
        {
            // an exponent too long for Java's parser: its sign decides
            final boolean down = text.charAt(mantissaEnd + 1) == '-';
            number = text.substring(start, mantissaEnd) + (down ? "e-999999" : "e999999");
        }
        final double magnitude = Double.parseDouble(number);
        final boolean outOfRange = Double.isInfinite(magnitude) || (magnitude == 0 && nonZero);
        return new Parsed(negative ? -magnitude : magnitude, i - from, outOfRange);
    }

    private static Parsed hex(final String rest, final int start, final int from, final boolean negative)
    {
        int i = 2;
        final StringBuilder mantissa = new StringBuilder("0x");
        boolean nonZero = false;
        while (i < rest.length() && isHexDigit(rest.charAt(i)))
        {
            nonZero |= rest.charAt(i) != '0';
            mantissa.append(rest.charAt(i++));
        }
        if (i < rest.length() && rest.charAt(i) == '.')
        {
            mantissa.append('.');
            i++;
            while (i < rest.length() && isHexDigit(rest.charAt(i)))
            {
                nonZero |= rest.charAt(i) != '0';
                mantissa.append(rest.charAt(i++));
            }
        }
        String exponent = "p0";
        if (i < rest.length() && rest.charAt(i) == 'p')
        {
            int j = i + 1;
            if (j < rest.length() && (rest.charAt(j) == '+' || rest.charAt(j) == '-'))
            {
                j++;
            }
            final int digits = j;
            while (j < rest.length() && rest.charAt(j) >= '0' && rest.charAt(j) <= '9')
            {
                j++;
            }
            if (j > digits)
            {
                exponent = j - i > 12 ? (rest.charAt(i + 1) == '-' ? "p-999999" : "p999999") : rest.substring(i, j);
                i = j;
            }
        }
        final double magnitude = Double.parseDouble(mantissa + exponent);
        final boolean outOfRange = Double.isInfinite(magnitude) || (magnitude == 0 && nonZero);
        return new Parsed(negative ? -magnitude : magnitude, start + i - from, outOfRange);
    }

    private static boolean isHex(final String text, final int at)
    {
        return at < text.length() && isHexDigit(text.charAt(at));
    }

    private static boolean isHexDigit(final char c)
    {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }

    private static boolean isSpace(final char c)
    {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b;
    }

    /** @return the score as C's {@code "%.17g"} writes it ("inf", "-inf", "0", "-0", "1.5", "1e+20"...). */
    public static String format(final double score)
    {
        if (Double.isNaN(score))
        {
            return "nan";
        }
        if (Double.isInfinite(score))
        {
            return score > 0 ? "inf" : "-inf";
        }
        if (score == 0)
        {
            return 1 / score < 0 ? "-0" : "0";
        }
        final BigDecimal rounded = new BigDecimal(score).round(SEVENTEEN);
        final int exponent = rounded.precision() - rounded.scale() - 1;
        String digits = rounded.unscaledValue().abs().toString();
        digits = digits.length() < 17 ? digits + "0".repeat(17 - digits.length()) : digits.substring(0, 17);
        final String sign = score < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 17)
        {
            final String mantissa = stripZeros(digits.charAt(0) + "." + digits.substring(1));
            final int magnitude = Math.abs(exponent);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + magnitude;
        }
        if (exponent >= 0)
        {
            return sign + stripZeros(digits.substring(0, exponent + 1) + "." + digits.substring(exponent + 1));
        }
        return sign + stripZeros("0." + "0".repeat(-exponent - 1) + digits);
    }

    /** @return the score as redis's d2string writes it (a listpack keeps it so): an integer as one, else "%.17g". */
    static String d2string(final double score)
    {
        if (!Double.isInfinite(score) && score != 0 && score == Math.rint(score) &&
            score > -(double)(Long.MAX_VALUE / 2) && score < (double)(Long.MAX_VALUE / 2))
        {
            return Long.toString((long)score);
        }
        return format(score);
    }

    private static String stripZeros(final String number)
    {
        int end = number.length();
        while (number.charAt(end - 1) == '0')
        {
            end--;
        }
        if (number.charAt(end - 1) == '.')
        {
            end--;
        }
        return number.substring(0, end);
    }

    /** Answer a score: a bulk string in RESP2, a double in RESP3, as redis's addReplyDouble. */
    static void reply(final ByteBuf out, final double score, final int protocol)
    {
        if (protocol >= 3)
        {
            out.writeByte(',');
            out.writeCharSequence(format(score), StandardCharsets.US_ASCII);
            out.writeByte('\r').writeByte('\n');
        }
        else
        {
            RespReplies.bulk(out, format(score));
        }
    }
}
