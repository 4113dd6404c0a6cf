package io.dkv.verbs;

/**
 * The system properties every {@code *Configuration} of this module reads its defaults from: an
 * unset property takes the default, a malformed one is an error naming it. Also the range check
 * every {@code *Context} makes of its settings.
 */
public final class ConfigurationProperties
{
    private ConfigurationProperties()
    {
    }

    /**
     * @return the property as a decimal int, or the default when it is unset.
     * @throws IllegalArgumentException when it is set and not an int.
     */
    public static int intProperty(final String name, final int defaultValue)
    {
        return (int)integerProperty(name, defaultValue, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /**
     * @return the property as a decimal long, or the default when it is unset.
     * @throws IllegalArgumentException when it is set and not a long.
     */
    public static long longProperty(final String name, final long defaultValue)
    {
        return integerProperty(name, defaultValue, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * @return the property as true or false, or the default when it is unset.
     * @throws IllegalArgumentException when it is set and neither.
     */
    public static boolean booleanProperty(final String name, final boolean defaultValue)
    {
        final String value = System.getProperty(name);
        if (value == null)
        {
            return defaultValue;
        }
        switch (value.trim().toLowerCase(java.util.Locale.ROOT))
        {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new IllegalArgumentException("property " + name + "='" + value + "' is neither true nor false");
        }
    }

    /**
     * Check a setting of a context once it is concluded, whether a property or a setter gave it.
     *
     * @throws IllegalArgumentException naming the setting, its value and the range.
     */
    public static void requireRange(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " outside " + min + ".." + max);
        }
    }

    private static long integerProperty(final String name, final long defaultValue, final long min, final long max)
    {
        final String value = System.getProperty(name);
        if (value == null)
        {
            return defaultValue;
        }
        final long parsed;
        try
        {
            parsed = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("property " + name + "='" + value + "' is not an integer", ex);
        }
        if (parsed < min || parsed > max)
        {
            throw new IllegalArgumentException("property " + name + "='" + value + "' is not an integer");
        }
        return parsed;
    }
}
