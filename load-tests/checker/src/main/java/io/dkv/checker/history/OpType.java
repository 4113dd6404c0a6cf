package io.dkv.checker.history;

import java.util.Locale;

/**
 * What an event of a history says: an operation began, or how it ended.
 */
public enum OpType
{
    /** The process called the operation. */
    INVOKE,
    /** It took effect and answered. */
    OK,
    /** It certainly did not take effect. */
    FAIL,
    /** Nobody knows whether it took effect (timeout, crash): it may have, at any time after its invocation. */
    INFO;

    /** @return the name in JSON lines, as Jepsen writes it. */
    public String jsonName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    public static OpType ofJsonName(final String name)
    {
        for (final OpType type : values())
        {
            if (type.jsonName().equals(name))
            {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown op type '" + name + "', expected invoke, ok, fail or info");
    }
}
