package io.dkv.compute;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * redis-server and a compute node answer a command alike, byte for byte, but for the time a key has left: a positive
 * TTL may differ by the seconds that passed between the two servers handling it on a loaded machine (redis rounds
 * what is left to the nearest second: SET EX 100 then TTL answers 99 once half a second went by).
 */
final class SameReplies
{
    /** Seconds a positive TTL of one may differ from the other's. */
    static final long TTL_SLACK_SECONDS = 2;

    private SameReplies()
    {
    }

    static void assertSameReply(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        final String expected = redis.call(command);
        final String actual = dkv.call(command);
        final String what = describe(command);
        if (command[0].equalsIgnoreCase("TTL") && expected.startsWith(":") && actual.startsWith(":"))
        {
            final long redisTtl = Long.parseLong(expected.substring(1));
            final long dkvTtl = Long.parseLong(actual.substring(1));
            if (redisTtl > 0 && dkvTtl > 0)
            {
                assertTrue(Math.abs(redisTtl - dkvTtl) <= TTL_SLACK_SECONDS, what + ": redis " + expected + ", dkv " +
                    actual);
                return;
            }
        }
        assertEquals(expected, actual, what);
    }

    /** @return the command as a message says it: an argument over 40 characters as its length. */
    static String describe(final String... command)
    {
        final StringBuilder text = new StringBuilder();
        for (final String arg : command)
        {
            text.append(text.isEmpty() ? "" : " ").append(arg.length() > 40 ? arg.length() + " bytes" : arg);
        }
        return text.toString();
    }
}
