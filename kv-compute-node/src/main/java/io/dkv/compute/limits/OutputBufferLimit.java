package io.dkv.compute.limits;

/**
 * One client class's output buffer limit, as redis's client-output-buffer-limit gives it: a connection with at least
 * {@code hardBytes} of replies pending is closed at once, and one with at least {@code softBytes} pending for longer
 * than {@code softSeconds} on end is closed then. A bound of 0 is none.
 *
 * @param hardBytes   pending bytes that close a connection at once; 0: none.
 * @param softBytes   pending bytes that close a connection held above them longer than {@code softSeconds}; 0: none.
 * @param softSeconds how long a connection may stay above {@code softBytes}.
 */
public record OutputBufferLimit(long hardBytes, long softBytes, long softSeconds)
{
    /** No limit: redis's normal class by default. */
    public static final OutputBufferLimit NONE = new OutputBufferLimit(0, 0, 0);

    /** @return true when {@code pendingBytes} reach the hard limit. */
    public boolean overHard(final long pendingBytes)
    {
        return hardBytes > 0 && pendingBytes >= hardBytes;
    }

    /** @return true when {@code pendingBytes} reach the soft limit. */
    public boolean overSoft(final long pendingBytes)
    {
        return softBytes > 0 && pendingBytes >= softBytes;
    }

    /** @return as CONFIG GET gives one class: hard, soft and seconds, after the class's name. */
    String format(final String className)
    {
        return className + " " + hardBytes + " " + softBytes + " " + softSeconds;
    }
}
