package io.dkv.verbs;

/**
 * The system properties every {@code *Configuration} of this module reads its defaults from: an
 * unset property takes the default, a malformed one is an error naming it.
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
        final String value = System.getProperty(name);
        if (value == null)
        {
            return defaultValue;
        }
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("property " + name + "='" + value + "' is not an integer", ex);
        }
    }

    /**
     * @return the property as a decimal long, or the default when it is unset.
     * @throws IllegalArgumentException when it is set and not a long.
     */
    public static long longProperty(final String name, final long defaultValue)
    {
        final String value = System.getProperty(name);
        if (value == null)
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("property " + name + "='" + value + "' is not an integer", ex);
        }
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
}
