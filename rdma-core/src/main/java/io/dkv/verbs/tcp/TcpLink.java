package io.dkv.verbs.tcp;

import io.dkv.verbs.PortAddress;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One TCP connection between two NIC engines, with fixed receive and transmit staging buffers:
 * whatever peers send, a link holds at most these two buffers of memory. A frame's payload larger
 * than the transmit space is streamed from a {@link ScatterList} as the socket drains. Frame
 * fields are read and written through {@link UnsafeBuffer} views in native byte order
 * (little-endian on every supported platform).
 */
abstract class TcpLink
{
    protected final TcpNicEngine engine;
    protected final SocketChannel channel;
    protected final String name;
    protected final ScatterList pendingPayload = new ScatterList();
    protected ByteBuffer rx;
    protected MemorySegment rxSegment;
    protected UnsafeBuffer rxBuffer;
    protected ByteBuffer tx;
    protected MemorySegment txSegment;
    protected UnsafeBuffer txBuffer;
    private final int bufferLength;
    private final boolean releaseOnClose;
    private Arena buffers;
    protected int rxHead;
    protected int rxTail;
    protected int txHead;
    protected int txTail;
    protected boolean hasPendingPayload;
    protected boolean payloadSourceReleased;
    private boolean buffersReleased;
    protected SelectionKey key;
    protected volatile boolean closed;
    protected volatile PortAddress peerAddress;

    /**
     * @param releaseOnClose true to free the buffers as soon as the link closes (links peers open,
     *                       whose number they control); false to leave them to the collector
     *                       (links this device opens, which other threads may still be reading).
     */
    TcpLink(
        final TcpNicEngine engine,
        final SocketChannel channel,
        final String name,
        final int bufferLength,
        final boolean releaseOnClose)
    {
        this.engine = engine;
        this.channel = channel;
        this.name = name;
        this.bufferLength = bufferLength;
        this.releaseOnClose = releaseOnClose;
    }

    /**
     * Give the link its staging buffers: at once for links this device opens, only after a valid
     * HELLO for links peers open, so that a connection that has proven nothing holds no memory.
     */
    protected final void allocateBuffers()
    {
        buffers = releaseOnClose ? Arena.ofShared() : Arena.ofAuto();
        rxSegment = buffers.allocate(bufferLength, 64);
        rx = rxSegment.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        rxBuffer = new UnsafeBuffer(rx);
        txSegment = buffers.allocate(bufferLength, 64);
        tx = txSegment.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        txBuffer = new UnsafeBuffer(tx);
        engine.onBuffersAllocated(2L * bufferLength, releaseOnClose);
    }

    final String name()
    {
        return name;
    }

    final boolean isClosed()
    {
        return closed;
    }

    final PortAddress peerAddress()
    {
        return peerAddress;
    }

    void key(final SelectionKey key)
    {
        this.key = key;
    }

    /** Bytes free at the tail of the transmit buffer, after moving unsent bytes to its start. */
    protected final int txSpace()
    {
        if (txHead == txTail)
        {
            txHead = 0;
            txTail = 0;
        }
        else if (txHead > 0 && tx.capacity() - txTail < 4096)
        {
            MemorySegment.copy(txSegment, txHead, txSegment, 0, txTail - txHead);
            txTail -= txHead;
            txHead = 0;
        }
        return tx.capacity() - txTail;
    }

    /**
     * Copy as much of the pending payload as fits into the transmit buffer. If the source memory
     * was released meanwhile the frame cannot be finished: the link is marked broken and the next
     * flush fails it, rather than send bytes the header did not promise.
     */
    protected final void fillPendingPayload()
    {
        if (!hasPendingPayload)
        {
            return;
        }
        final int space = txSpace();
        final long chunk = Math.min(space, pendingPayload.remaining());
        if (chunk > 0)
        {
            try
            {
                pendingPayload.gatherInto(txSegment, txTail, chunk);
            }
            catch (final IllegalStateException ex)
            {
                payloadSourceReleased = true;
                pendingPayload.clear();
                hasPendingPayload = false;
                return;
            }
            txTail += (int)chunk;
        }
        if (pendingPayload.remaining() == 0)
        {
            pendingPayload.clear();
            hasPendingPayload = false;
        }
    }

    /**
     * Write staged bytes to the socket, refilling from the pending payload, until both are done or
     * the socket takes no more.
     *
     * @return true when nothing is left to send.
     * @throws IOException when the connection failed.
     */
    protected final boolean flushTransmit() throws IOException
    {
        while (true)
        {
            fillPendingPayload();
            if (payloadSourceReleased)
            {
                throw new IOException("memory of a transfer in progress was released");
            }
            if (txHead == txTail)
            {
                return !hasPendingPayload;
            }
            tx.limit(txTail).position(txHead);
            final int written = channel.write(tx);
            txHead += written;
            if (written == 0)
            {
                return false;
            }
        }
    }

    protected final boolean hasUnsent()
    {
        return txHead != txTail || hasPendingPayload;
    }

    /**
     * Read what the socket has into the receive buffer.
     *
     * @return bytes read, 0 when the buffer is full or nothing arrived.
     * @throws IOException when the connection failed or the peer closed it.
     */
    protected final int readAvailable() throws IOException
    {
        if (rxHead == rxTail)
        {
            rxHead = 0;
            rxTail = 0;
        }
        else if (rxHead > 0 && (rx.capacity() - rxTail < 4096 || rxHead > rx.capacity() / 2))
        {
            MemorySegment.copy(rxSegment, rxHead, rxSegment, 0, rxTail - rxHead);
            rxTail -= rxHead;
            rxHead = 0;
        }
        if (rxTail == rx.capacity())
        {
            return 0;
        }
        rx.limit(rx.capacity()).position(rxTail);
        final int read = channel.read(rx);
        if (read < 0)
        {
            throw new IOException("peer closed the connection");
        }
        rxTail += read;
        return read;
    }

    /**
     * Read and parse until the socket has nothing more (or the link closed, or the receive buffer
     * is full and parsing cannot make room).
     */
    protected final void readAndParse() throws IOException
    {
        while (!closed)
        {
            final int space = rx.capacity() - rxTail;
            final int read = readAvailable();
            parse();
            // a read that did not fill the buffer drained the socket: asking again costs a system call
            if (read == 0 || read < space)
            {
                break;
            }
        }
    }

    /** Consume whole frames (and payload bytes) from the receive buffer. Engine thread. */
    protected abstract void parse();

    protected final int rxAvailable()
    {
        return rxTail - rxHead;
    }

    /** The engine's turn: the socket is readable or writable. */
    abstract void onReady(int readyOps);

    /** Close the connection; what depended on it learns why. */
    abstract void close(String reason);

    protected final void closeChannel()
    {
        closed = true;
        if (key != null)
        {
            key.cancel();
        }
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // closing anyway
        }
    }

    /**
     * Give the staging buffers back (at once for links peers opened); only once no thread can
     * touch them (engine thread, after close).
     */
    protected final void releaseBuffers()
    {
        if (buffers != null && buffers.scope().isAlive() && !buffersReleased)
        {
            buffersReleased = true;
            engine.onBuffersAllocated(-rxSegment.byteSize() - txSegment.byteSize(), releaseOnClose);
            if (releaseOnClose)
            {
                buffers.close();
            }
        }
    }

    public String toString()
    {
        return name;
    }
}
