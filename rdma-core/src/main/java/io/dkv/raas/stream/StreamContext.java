package io.dkv.raas.stream;

import io.dkv.clock.CommonContext;

/**
 * How a stream end is sized: its stream buffer (what indirect transfers go through), the largest
 * transfer carried inside its message, how many receives may be posted at once, and how long a wait
 * goes before the peer is probed for life.
 *
 * <p>A stream reads the time only from {@link #nanoClock()}: how long it has heard nothing from its peer (the probe
 * after {@link #probeMs()}) and how long its HELLO may go unanswered. Left unset, the first stream the context opens
 * gives it its driver's ({@link io.dkv.raas.Raas#nanoClock()}), so that a test that drives the driver's time, or a
 * harness that skews the process's, drives the stream's too. Its wall clock is not read.
 */
public final class StreamContext extends CommonContext<StreamContext>
{
    public static final String BUFFER_BYTES_PROP_NAME = "dkv.raas.stream.buffer.bytes";
    public static final int BUFFER_BYTES_DEFAULT = 4 * 1024 * 1024;
    public static final String INLINE_BYTES_PROP_NAME = "dkv.raas.stream.inline.bytes";
    public static final int INLINE_BYTES_DEFAULT = 2048;
    public static final int MAX_POSTED_DEFAULT = 64;
    public static final String PROBE_MS_PROP_NAME = "dkv.raas.stream.probe.ms";
    public static final int PROBE_MS_DEFAULT = 1000;

    private int bufferBytes = Integer.getInteger(BUFFER_BYTES_PROP_NAME, BUFFER_BYTES_DEFAULT);
    private int inlineBytes = Integer.getInteger(INLINE_BYTES_PROP_NAME, INLINE_BYTES_DEFAULT);
    private int maxPosted = MAX_POSTED_DEFAULT;
    private int probeMs = Integer.getInteger(PROBE_MS_PROP_NAME, PROBE_MS_DEFAULT);

    /** @param bytes the stream buffer each end holds for bytes sent to it indirectly. */
    public StreamContext bufferBytes(final int bytes)
    {
        this.bufferBytes = bytes;
        return this;
    }

    public int bufferBytes()
    {
        return bufferBytes;
    }

    /** @param bytes indirect transfers of at most this many bytes travel inside their message (0: never). */
    public StreamContext inlineBytes(final int bytes)
    {
        this.inlineBytes = bytes;
        return this;
    }

    public int inlineBytes()
    {
        return inlineBytes;
    }

    /** @param receives how many receives an end may have posted at once (each may be advertised). */
    public StreamContext maxPosted(final int receives)
    {
        this.maxPosted = receives;
        return this;
    }

    public int maxPosted()
    {
        return maxPosted;
    }

    /** @param millis after waiting this long with nothing from the peer, READ its stream buffer to see it lives. */
    public StreamContext probeMs(final int millis)
    {
        this.probeMs = millis;
        return this;
    }

    public int probeMs()
    {
        return probeMs;
    }

    /**
     * @param messageBytes the largest message the connection carries as a SEND.
     * @return this, checked, its clocks filled in with the process's where none was set.
     * @throws IllegalArgumentException naming the value at fault.
     */
    public StreamContext conclude(final int messageBytes)
    {
        super.conclude();
        if (bufferBytes < 4096)
        {
            throw new IllegalArgumentException(BUFFER_BYTES_PROP_NAME + "=" + bufferBytes + ": at least 4096");
        }
        if (inlineBytes < 0 || StreamMessages.HEADER_LENGTH + inlineBytes > messageBytes)
        {
            throw new IllegalArgumentException(INLINE_BYTES_PROP_NAME + "=" + inlineBytes + ": at most " +
                (messageBytes - StreamMessages.HEADER_LENGTH) + " (a message carries " + messageBytes + " bytes)");
        }
        if (maxPosted < 1 || maxPosted > 4096)
        {
            throw new IllegalArgumentException("maxPosted=" + maxPosted + ": 1 to 4096");
        }
        if (probeMs < 1)
        {
            throw new IllegalArgumentException(PROBE_MS_PROP_NAME + "=" + probeMs + ": at least 1");
        }
        return this;
    }
}
