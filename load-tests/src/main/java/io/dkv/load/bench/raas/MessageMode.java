package io.dkv.load.bench.raas;

import io.dkv.raas.Flags;

/**
 * The ways RaaS can carry a message that the thresholds decide between, each forced with flags.
 */
enum MessageMode
{
    /** A SEND into the receiver's shared receive queue; the payload is always copied into a registered buffer. */
    SEND(Flags.USE_SEND, "SEND"),
    /** WRITE_WITH_IMM into the buffer the receiver advertised, from a registered buffer the payload is copied into. */
    WRITE_COPY(Flags.USE_WRITE | Flags.COPY, "WRITE_WITH_IMM, COPY"),
    /** WRITE_WITH_IMM straight from the caller's native buffer, registered once and cached. */
    WRITE_REGISTER(Flags.USE_WRITE | Flags.REGISTER, "WRITE_WITH_IMM, REGISTER");

    private final int flags;
    private final String label;

    MessageMode(final int flags, final String label)
    {
        this.flags = flags;
        this.label = label;
    }

    int flags()
    {
        return flags;
    }

    String label()
    {
        return label;
    }
}
