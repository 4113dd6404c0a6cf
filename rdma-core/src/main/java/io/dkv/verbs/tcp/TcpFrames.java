package io.dkv.verbs.tcp;

import io.dkv.verbs.PortAddress;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * Frames of a tcp link built into plain buffers, for what speaks to a NIC engine from outside the
 * provider: conformance tests and the hostile-peer benchmark, which send frames well-formed or not.
 * The provider itself writes frames in place, into its links' staging buffers.
 */
public final class TcpFrames
{
    private TcpFrames()
    {
    }

    /** @return a HELLO claiming to come from {@code claimed}, positioned at 0. */
    public static ByteBuffer hello(final PortAddress claimed)
    {
        final ByteBuffer frame = ByteBuffer.allocate(HELLO_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] address = claimed.bytes();
        frame.putInt(FRAME_LENGTH_OFFSET, HELLO_LENGTH).put(TYPE_OFFSET, TYPE_HELLO)
            .putLong(HELLO_MAGIC_OFFSET, HELLO_MAGIC)
            .putInt(HELLO_VERSION_OFFSET, PROTOCOL_VERSION).putInt(HELLO_ADDRESS_LENGTH_OFFSET, address.length)
            .put(HELLO_ADDRESS_OFFSET, address);
        return frame;
    }

    /** @return a request header (its payload, if any, is the caller's to send), positioned at 0. */
    public static ByteBuffer request(
        final int frameLength, final int opcode, final int transport, final int srcQpn, final int dst, final int psn,
        final int length, final long remoteAddr, final int rkey)
    {
        final ByteBuffer frame = ByteBuffer.allocate(REQUEST_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        return putRequest(frame, 0, frameLength, opcode, transport, srcQpn, dst, psn, length, remoteAddr, rkey);
    }

    /** Write a request header at {@code offset} of {@code frame} (little-endian); other fields stay as they are. */
    public static ByteBuffer putRequest(
        final ByteBuffer frame, final int offset, final int frameLength, final int opcode, final int transport,
        final int srcQpn,
        final int dst, final int psn, final int length, final long remoteAddr, final int rkey)
    {
        frame.putInt(offset + FRAME_LENGTH_OFFSET, frameLength).put(offset + TYPE_OFFSET, TYPE_REQUEST)
            .put(offset + REQ_OPCODE_OFFSET, (byte)opcode).put(offset + REQ_TRANSPORT_OFFSET, (byte)transport)
            .putInt(offset + REQ_SRC_QPN_OFFSET, srcQpn).putInt(offset + REQ_DST_OFFSET, dst)
            .putInt(offset + REQ_PSN_OFFSET, psn)
            .putInt(offset + REQ_LENGTH_OFFSET, length).putLong(offset + REQ_REMOTE_ADDR_OFFSET, remoteAddr)
            .putInt(offset + REQ_RKEY_OFFSET, rkey);
        return frame;
    }
}
