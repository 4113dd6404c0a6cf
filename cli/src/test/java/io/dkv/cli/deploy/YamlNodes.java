package io.dkv.cli.deploy;

import java.util.List;
import java.util.Map;

/**
 * Walking parsed YAML (maps, lists and scalars) without a cast at every step: a missing part reads as empty, so that a
 * check can say what is missing instead of failing on a null.
 */
final class YamlNodes
{
    private YamlNodes()
    {
    }

    /** @return the value as a map, empty for null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(final Object value)
    {
        if (value == null)
        {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?>))
        {
            throw new IllegalArgumentException("expected a mapping, got " + value);
        }
        return (Map<String, Object>)value;
    }

    /** @return the value as a list, empty for null. */
    @SuppressWarnings("unchecked")
    static List<Object> list(final Object value)
    {
        if (value == null)
        {
            return List.of();
        }
        if (!(value instanceof List<?>))
        {
            throw new IllegalArgumentException("expected a sequence, got " + value);
        }
        return (List<Object>)value;
    }

    /** @return the list's items that are maps. */
    static List<Map<String, Object>> maps(final Object value)
    {
        return list(value).stream().map(YamlNodes::map).toList();
    }

    /** @return a scalar as text (a number as YAML read it), or null. */
    static String string(final Object value)
    {
        return value == null ? null : String.valueOf(value);
    }

    /** @return the list's items as text. */
    static List<String> strings(final Object value)
    {
        return list(value).stream().map(YamlNodes::string).toList();
    }
}
