package io.dkv.raas.lite;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What an RPC's request and reply carry ahead of their bytes.
 *
 * <pre>
 *   request:  0 correlation (long)  8 payload ...
 *   reply:    0 correlation (long)  8 status (int)  12 payload length (int)  16 payload ... (an error's message
 *             in UTF-8 when status is ERROR)
 * </pre>
 * Big-endian.
 */
final class RpcFrames
{
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static final int CORRELATION_OFFSET = 0;
    static final int REQUEST_HEADER = 8;
    static final int STATUS_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int REPLY_HEADER = 16;

    static final int OK = 0;
    static final int ERROR = 1;

    private RpcFrames()
    {
    }
}
