package io.dkv.compute.script;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers as Lua 5.1 (redis's Lua) writes them: C's "%.14g" (LUAI_NUMFFORMAT), used by tostring, table.concat and
 * cjson here. LuaJ writes a number that is not an integer as Java writes a float ({@code 3.0E-4}, {@code 0.33333334}),
 * which would change what scripts build from numbers.
 */
final class LuaNumbers
{
    private static final MathContext FOURTEEN = new MathContext(14, RoundingMode.HALF_EVEN);

    private LuaNumbers()
    {
    }

    /** @return the number as "%.14g" writes it: "0.0003", "1e+20", "-0", "inf", "nan". */
    static String format(final double value)
    {
        if (Double.isNaN(value))
        {
            return "nan";
        }
        if (Double.isInfinite(value))
        {
            return value > 0 ? "inf" : "-inf";
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
        int end = decimal.length();
        while (decimal.charAt(end - 1) == '0')
        {
            end--;
        }
        return decimal.substring(0, decimal.charAt(end - 1) == '.' ? end - 1 : end);
    }
}
