package io.dkv.compute.command;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The arithmetic of INCRBYFLOAT as redis does it in C's {@code long double} (x86's 80-bit extended precision: a 64-bit
 * significand, exponents -16382 to 16383), which Java has not: text read as {@code strtold} reads it (decimal, hex,
 * inf, rounded to nearest even), a sum rounded the same way, and the result printed as {@code "%.17Lf"} with the
 * trailing zeros and a "-0" taken away (redis's ld2string, human mode). Values are exact binary fractions held in big
 * integers, so every rounding is the one the hardware makes. Subnormals are rounded at the smallest exponent.
 */
final class LongDoubles
{
    /** A long double: sign * significand * 2^exponent, or an infinity. */
    record Value(int sign, BigInteger significand, int exponent, boolean infinite)
    {
        boolean isZero()
        {
            return !infinite && significand.signum() == 0;
        }
    }

    private static final int PRECISION = 64;
    private static final int MAX_EXPONENT = 16383;
    /** The weight of a subnormal's last bit: 2^-16445. */
    private static final int MIN_LSB_EXPONENT = -16382 - (PRECISION - 1);
    private static final Pattern DECIMAL = Pattern.compile("([+-]?)(\\d*)(?:\\.(\\d*))?(?:[eE]([+-]?\\d+))?");
    private static final Pattern HEX =
        Pattern.compile("([+-]?)0[xX]([0-9a-fA-F]*)(?:\\.([0-9a-fA-F]*))?(?:[pP]([+-]?\\d+))?");
    private static final Pattern INFINITY = Pattern.compile("([+-]?)(?i:inf|infinity)");
    private static final BigInteger TEN = BigInteger.TEN;

    private LongDoubles()
    {
    }

    /**
     * @return the value as redis's string2ld reads it, or null where redis refuses it: empty, a leading space, text
     * after the number, NaN, or a finite number that overflows or underflows to zero.
     */
    static Value parse(final byte[] text)
    {
        if (text.length == 0 || text.length >= 5 * 1024 || Character.isWhitespace(text[0]))
        {
            return null;
        }
        final String s = new String(text, StandardCharsets.ISO_8859_1);
        Matcher matcher = INFINITY.matcher(s);
        if (matcher.matches())
        {
            return new Value(matcher.group(1).equals("-") ? -1 : 1, BigInteger.ZERO, 0, true);
        }
        matcher = HEX.matcher(s);
        if (matcher.matches())
        {
            return hex(matcher);
        }
        matcher = DECIMAL.matcher(s);
        if (!matcher.matches())
        {
            return null;
        }
        final String whole = matcher.group(2);
        final String fraction = matcher.group(3) == null ? "" : matcher.group(3);
        if (whole.isEmpty() && fraction.isEmpty())
        {
            return null;
        }
        final int sign = matcher.group(1).equals("-") ? -1 : 1;
        final BigInteger digits = new BigInteger(whole + fraction);
        if (digits.signum() == 0)
        {
            return new Value(sign, BigInteger.ZERO, 0, false);
        }
        final long exponent = exponent(matcher.group(4)) - fraction.length();
        if (exponent > 5_000 || exponent < -5_000 - (whole.length() + fraction.length()))
        {
            // past long double's range whatever the digits: strtold's ERANGE
            return null;
        }
        final Value value = exponent >= 0 ?
            round(sign, digits.multiply(TEN.pow((int)exponent)), BigInteger.ONE) :
            round(sign, digits, TEN.pow((int)-exponent));
        return value.infinite || value.isZero() ? null : value;
    }

    private static Value hex(final Matcher matcher)
    {
        final String whole = matcher.group(2);
        final String fraction = matcher.group(3) == null ? "" : matcher.group(3);
        if (whole.isEmpty() && fraction.isEmpty())
        {
            return null;
        }
        final int sign = matcher.group(1).equals("-") ? -1 : 1;
        final BigInteger digits = new BigInteger(whole + fraction, 16);
        if (digits.signum() == 0)
        {
            return new Value(sign, BigInteger.ZERO, 0, false);
        }
        final long exponent = exponent(matcher.group(4)) - 4L * fraction.length();
        if (exponent > 20_000 || exponent < -20_000 - 4L * (whole.length() + fraction.length()))
        {
            return null;
        }
        final Value value = exponent >= 0 ? round(sign, digits.shiftLeft((int)exponent), BigInteger.ONE) :
            round(sign, digits, BigInteger.ONE.shiftLeft((int)-exponent));
        return value.infinite || value.isZero() ? null : value;
    }

    private static long exponent(final String text)
    {
        if (text == null)
        {
            return 0;
        }
        final String digits = text.startsWith("+") || text.startsWith("-") ? text.substring(1) : text;
        final String trimmed = digits.replaceFirst("^0+(?=\\d)", "");
        final long magnitude = trimmed.length() > 9 ? 1_000_000_000L : Long.parseLong(trimmed);
        return text.startsWith("-") ? -magnitude : magnitude;
    }

    /** @return a + b, rounded; an infinity where it overflows; null for NaN (infinities of both signs). */
    static Value add(final Value a, final Value b)
    {
        if (a.infinite || b.infinite)
        {
            if (a.infinite && b.infinite && a.sign != b.sign)
            {
                return null;
            }
            return a.infinite ? a : b;
        }
        if (a.isZero())
        {
            return b;
        }
        if (b.isZero())
        {
            return a;
        }
        final int low = Math.min(a.exponent, b.exponent);
        final BigInteger sum = signed(a).shiftLeft(a.exponent - low).add(signed(b).shiftLeft(b.exponent - low));
        if (sum.signum() == 0)
        {
            return new Value(1, BigInteger.ZERO, 0, false);
        }
        return low >= 0 ? round(sum.signum(), sum.abs().shiftLeft(low), BigInteger.ONE) :
            round(sum.signum(), sum.abs(), BigInteger.ONE.shiftLeft(-low));
    }

    private static BigInteger signed(final Value value)
    {
        return value.sign < 0 ? value.significand.negate() : value.significand;
    }

    /** @return numerator / denominator (both positive) rounded to 64 significant bits, nearest even. */
    private static Value round(final int sign, final BigInteger numerator, final BigInteger denominator)
    {
        int exponent = numerator.bitLength() - denominator.bitLength() - PRECISION;
        BigInteger[] quotient = divide(numerator, denominator, exponent);
        if (quotient[0].bitLength() > PRECISION)
        {
            exponent++;
            quotient = divide(numerator, denominator, exponent);
        }
        else if (quotient[0].bitLength() < PRECISION)
        {
            exponent--;
            quotient = divide(numerator, denominator, exponent);
        }
        if (exponent < MIN_LSB_EXPONENT)
        {
            exponent = MIN_LSB_EXPONENT;
            quotient = divide(numerator, denominator, exponent);
        }
        BigInteger significand = quotient[0];
        final int half = quotient[1].shiftLeft(1).compareTo(quotient[2]);
        if (half > 0 || (half == 0 && significand.testBit(0)))
        {
            significand = significand.add(BigInteger.ONE);
            if (significand.bitLength() > PRECISION)
            {
                significand = significand.shiftRight(1);
                exponent++;
            }
        }
        if (significand.signum() != 0 && exponent + significand.bitLength() - 1 > MAX_EXPONENT)
        {
            return new Value(sign, BigInteger.ZERO, 0, true);
        }
        return new Value(sign, significand, exponent, false);
    }

    /** @return {floor(n / (d * 2^e)), remainder, the divisor}. */
    private static BigInteger[] divide(final BigInteger numerator, final BigInteger denominator, final int exponent)
    {
        final BigInteger n = exponent >= 0 ? numerator : numerator.shiftLeft(-exponent);
        final BigInteger d = exponent >= 0 ? denominator.shiftLeft(exponent) : denominator;
        final BigInteger[] division = n.divideAndRemainder(d);
        return new BigInteger[]{division[0], division[1], d};
    }

    /** @return the value as redis writes it back: "%.17Lf", trailing zeros and point taken away, never "-0". */
    static String format(final Value value)
    {
        if (value.infinite)
        {
            return value.sign < 0 ? "-inf" : "inf";
        }
        BigDecimal exact = value.exponent >= 0 ? new BigDecimal(value.significand.shiftLeft(value.exponent)) :
            new BigDecimal(value.significand.multiply(BigInteger.valueOf(5).pow(-value.exponent)), -value.exponent);
        if (value.sign < 0)
        {
            exact = exact.negate();
        }
        String text = exact.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = text.length();
        while (text.charAt(end - 1) == '0')
        {
            end--;
        }
        if (text.charAt(end - 1) == '.')
        {
            end--;
        }
        text = text.substring(0, end);
        return text.equals("-0") ? "0" : text;
    }
}
