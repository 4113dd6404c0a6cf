package io.dkv.compute.command;

import java.util.concurrent.TimeUnit;

/**
 * What a failed AUTH (or HELLO AUTH) costs its connection: its reply is held for a delay that doubles with each
 * failure of the connection, up to a cap, and after a number of failures the connection is closed. The delay holds the
 * connection's replies and requests, never the event loop: the connection is resumed by a task scheduled on its loop.
 * Each failure is counted in the node's figures and logged, at most a line an interval ({@link RateLimitedLog}).
 *
 * @param firstDelayNanos the first failure's delay; 0 for none.
 * @param maxDelayNanos   the longest delay.
 * @param maxFailures     failures after which the connection is closed (its last reply sent).
 * @param log             where failures are logged, or null for nowhere.
 */
public record AuthThrottle(long firstDelayNanos, long maxDelayNanos, int maxFailures, RateLimitedLog log)
{
    /** No delay, no close, no line: what a node's own warm-up and the tests that build a table alone use. */
    public static final AuthThrottle NONE = new AuthThrottle(0, 0, Integer.MAX_VALUE, null);

    /** As configured in milliseconds. */
    public static AuthThrottle ofMillis(final long firstDelayMs, final long maxDelayMs, final int maxFailures,
        final RateLimitedLog log)
    {
        return new AuthThrottle(TimeUnit.MILLISECONDS.toNanos(firstDelayMs), TimeUnit.MILLISECONDS.toNanos(maxDelayMs),
            maxFailures, log);
    }

    /** A failure on {@code session}'s connection: counted, logged, and its reply delayed or its connection closed. */
    void failed(final Session session, final NodeStats stats)
    {
        stats.authFailed();
        final int failures = session.authFailed();
        final boolean last = failures >= maxFailures;
        if (last)
        {
            session.closeAfterReply(true);
        }
        session.holdReply(delayNanos(failures));
        if (log != null)
        {
            log.event(session.remote(), "its " + ordinal(failures) + " on that connection" +
                (last ? ", which is closed" : "") + "; " + stats.authFailures() + " since start");
        }
    }

    /** @return the delay of a connection's {@code failures}-th failure: the first, doubled per failure, capped. */
    long delayNanos(final int failures)
    {
        if (firstDelayNanos == 0)
        {
            return 0;
        }
        final int doublings = failures - 1;
        final long doubled = doublings >= Long.numberOfLeadingZeros(firstDelayNanos) - 1 ? Long.MAX_VALUE :
            firstDelayNanos << doublings;
        return Math.min(maxDelayNanos, doubled);
    }

    private static String ordinal(final int n)
    {
        final int tens = n % 100;
        final String suffix = tens >= 11 && tens <= 13 ? "th" :
            switch (n % 10)
            {
                case 1 -> "st";
                case 2 -> "nd";
                case 3 -> "rd";
                default -> "th";
            };
        return n + suffix;
    }
}
