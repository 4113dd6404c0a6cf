package io.dkv.memory;

import io.dkv.client.layout.ChunkProtocol;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.Agent;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory node's duty cycle: accept clients' message connections and answer their chunk
 * requests. The only CPU work of the write path; reads and writes of data never come here.
 */
final class ChunkServer implements Agent
{
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final System.Logger LOG = System.getLogger(ChunkServer.class.getName());

    private final Listener listener;
    private final ChunkAllocator chunks;
    private final MemorySegment request;
    private final MemorySegment reply;
    private final List<Connection> clients = new ArrayList<>();

    ChunkServer(final Listener listener, final ChunkAllocator chunks, final MemorySegment request, final MemorySegment reply)
    {
        this.listener = listener;
        this.chunks = chunks;
        this.request = request;
        this.reply = reply;
    }

    public String roleName()
    {
        return "dkv-memory-chunks";
    }

    public int doWork()
    {
        int work = 0;
        Connection accepted;
        while ((accepted = listener.poll()) != null)
        {
            clients.add(accepted);
            work++;
        }
        for (int i = clients.size() - 1; i >= 0; i--)
        {
            final Connection client = clients.get(i);
            if (!client.isReadable())
            {
                continue;
            }
            try
            {
                final int length = client.recv(request, 0, (int)request.byteSize(), Duration.ZERO);
                answer(client, length);
                work++;
            }
            catch (final RaasException gone)
            {
                // the client closed its end (or went away): its chunks stay written, as their blocks may be published
                clients.remove(i);
                client.close();
            }
        }
        return work;
    }

    private void answer(final Connection client, final int length)
    {
        final long correlation = length >= ChunkProtocol.REQUEST_LENGTH ? request.get(LONG, ChunkProtocol.CORRELATION_OFFSET) : 0;
        int status = ChunkProtocol.BAD_REQUEST;
        long offset = -1;
        final int wanted = length >= ChunkProtocol.REQUEST_LENGTH ?
            Math.min(request.get(INT, ChunkProtocol.LENGTH_OFFSET), chunks.maxChunkLength()) : 0;
        if (length >= ChunkProtocol.REQUEST_LENGTH && request.get(INT, ChunkProtocol.TYPE_OFFSET) == ChunkProtocol.ALLOCATE &&
            chunks.isValidLength(wanted))
        {
            offset = chunks.allocate(wanted);
            status = offset < 0 ? ChunkProtocol.FULL : ChunkProtocol.OK;
            if (offset < 0)
            {
                LOG.log(System.Logger.Level.WARNING, "heap full: " + chunks.used() + " of " + chunks.heapLength() +
                    " bytes handed out, a chunk of " + wanted + " asked for");
            }
        }
        reply.set(INT, ChunkProtocol.STATUS_OFFSET, status);
        reply.set(INT, ChunkProtocol.CHUNK_LENGTH_OFFSET, status == ChunkProtocol.OK ? wanted : chunks.maxChunkLength());
        reply.set(LONG, ChunkProtocol.REPLY_CORRELATION_OFFSET, correlation);
        reply.set(LONG, ChunkProtocol.CHUNK_OFFSET_OFFSET, offset);
        client.send(reply, 0, ChunkProtocol.REPLY_LENGTH, Flags.ADAPTIVE);
    }

    public void onClose()
    {
        clients.forEach(Connection::close);
        clients.clear();
    }
}
