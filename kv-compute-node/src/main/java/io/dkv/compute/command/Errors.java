package io.dkv.compute.command;

import java.nio.charset.StandardCharsets;

/**
 * redis-server's error texts that several command families give, word for word: clients match on them.
 */
final class Errors
{
    static final String SYNTAX = "ERR syntax error";
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String OVERFLOW = "ERR increment or decrement would overflow";
    static final String NOAUTH = "NOAUTH Authentication required.";
    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    static final String DB_OUT_OF_RANGE = "ERR DB index is out of range";
    static final String TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private Errors()
    {
    }

    /** redis's addReplyErrorExpireTime: it names the command as redis does, lower case whatever the request's case. */
    static String invalidExpireTime(final String command)
    {
        return "ERR invalid expire time in '" + command + "' command";
    }

    static String arity(final String fullName)
    {
        return "ERR wrong number of arguments for '" + fullName + "' command";
    }

    /** Bytes as redis prints them with %s: each byte one character, whatever it is. */
    static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** redis's %.128s. */
    static String text128(final byte[] bytes)
    {
        return new String(bytes, 0, Math.min(bytes.length, 128), StandardCharsets.ISO_8859_1);
    }
}
