package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.SendFlags;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.dkv.raas.ControlHeader.*;

/**
 * Sending the driver's control messages (a {@link io.dkv.raas.ControlHeader} and its payload, from a
 * request slot's staging memory) and reading the sender's node record in those that carry one. A
 * message the poller makes cannot wait for a free slot: it goes to the backlog, which housekeeping
 * sends on its next turn.
 */
final class ControlMessages
{
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private final RequestPipeline pipeline;
    private final ReceiveBuffers receiveBuffers;
    private final NodeRecord self;
    private final String provider;
    private final ConcurrentLinkedQueue<Runnable> backlog = new ConcurrentLinkedQueue<>();

    ControlMessages(
        final RequestPipeline pipeline,
        final ReceiveBuffers receiveBuffers,
        final NodeRecord self,
        final String provider)
    {
        this.pipeline = pipeline;
        this.receiveBuffers = receiveBuffers;
        this.self = self;
        this.provider = provider;
    }

    /**
     * A slot with a control header already written into its staging memory, or null when none is
     * free (the caller then leaves the message to the backlog).
     */
    RequestSlot controlSlot(
        final NodeRoute route, final int imm, final byte type, final int srcVqpn, final int credits, final int length)
    {
        final RequestSlot slot = pipeline.tryAcquireSlot();
        if (slot == null)
        {
            return null;
        }
        slot.kind = RequestSlot.KIND_CONTROL;
        slot.route = route;
        slot.vqpn = 0;
        slot.opcode = Opcode.SEND_WITH_IMM;
        final MemorySegment staging = slot.staging;
        staging.set(BYTE, TYPE_OFFSET, type);
        staging.set(BYTE, FLAGS_OFFSET, (byte)0);
        staging.set(INT, SRC_VQPN_OFFSET, srcVqpn);
        staging.set(INT, CREDITS_OFFSET, credits);
        staging.set(INT, LENGTH_OFFSET, length);
        slot.wr.reset().wrId(slot.wrId()).opcode(Opcode.SEND_WITH_IMM).immData(imm).sendFlags(SendFlags.SIGNALED);
        return slot;
    }

    /** A control slot, waiting for one while requests complete: for callers, never the poller. */
    RequestSlot awaitControlSlot(
        final NodeRoute route, final int imm, final byte type, final int srcVqpn, final int credits, final int length)
    {
        RequestSlot slot;
        int spins = 0;
        while ((slot = controlSlot(route, imm, type, srcVqpn, credits, length)) == null)
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
            }
        }
        return slot;
    }

    /** Send a control slot's header and the payload written after it. */
    void post(final RequestSlot slot, final int payloadBytes)
    {
        slot.sendStaged(LENGTH + payloadBytes);
        pipeline.submit(slot);
    }

    /** A slot made by {@link #controlSlot} that is not sent after all. */
    void discard(final RequestSlot slot)
    {
        pipeline.releaseSlot(slot);
    }

    /** Send a header-only control message now if a slot is free, else soon. */
    void sendSimple(
        final NodeRoute route, final int imm, final byte type, final int srcVqpn, final int credits, final int length)
    {
        final RequestSlot slot = controlSlot(route, imm, type, srcVqpn, credits, length);
        if (slot == null)
        {
            later(() -> sendSimple(route, imm, type, srcVqpn, credits, length));
            return;
        }
        post(slot, 0);
    }

    /** Send a message on housekeeping's next turn: no slot was free for it now. */
    void later(final Runnable send)
    {
        backlog.add(send);
    }

    /** Housekeeping's turn: send what the backlog held when it began. @return messages tried. */
    int sendBacklog()
    {
        int work = 0;
        Runnable task;
        // what was there when the turn began: a task finding no free slot goes back for the next turn
        for (int waiting = backlog.size(); waiting > 0 && (task = backlog.poll()) != null; waiting--)
        {
            task.run();
            work++;
        }
        return work;
    }

    /** Write this node's record (and the service asked for) where a CONNECT or RC_CONNECT carries it. */
    void writeSelf(final MemorySegment staging, final int service)
    {
        staging.set(INT, CONNECT_SERVICE_OFFSET, service);
        staging.set(INT, CONNECT_ROLE_OFFSET, self.role());
        staging.set(LONG, CONNECT_NODE_ID_OFFSET, self.id());
        staging.set(LONG, CONNECT_DC_KEY_OFFSET, self.dcKey());
        staging.set(LONG, CONNECT_EPOCH_OFFSET, self.epoch());
        staging.set(INT, CONNECT_DCT_OFFSET, self.dctNumber());
        final byte[] address = self.address().bytes();
        staging.set(INT, CONNECT_ADDRESS_LENGTH_OFFSET, address.length);
        MemorySegment.copy(MemorySegment.ofArray(address), 0, staging, CONNECT_ADDRESS_OFFSET, address.length);
    }

    /** @return the sender's record, from a CONNECT or RC_CONNECT in a receive buffer; null if malformed. */
    NodeRecord readSender(final long base)
    {
        final MemorySegment memory = receiveBuffers.memory();
        final int addressLength = memory.get(INT, base + CONNECT_ADDRESS_LENGTH_OFFSET);
        if (addressLength <= 0 || addressLength > CONNECT_MAX_ADDRESS)
        {
            return null;
        }
        final byte[] address = new byte[addressLength];
        MemorySegment.copy(memory, BYTE, base + CONNECT_ADDRESS_OFFSET, address, 0, addressLength);
        try
        {
            return new NodeRecord(
                memory.get(LONG, base + CONNECT_NODE_ID_OFFSET),
                memory.get(INT, base + CONNECT_ROLE_OFFSET),
                PortAddress.of(provider, address),
                memory.get(INT, base + CONNECT_DCT_OFFSET),
                memory.get(LONG, base + CONNECT_DC_KEY_OFFSET),
                memory.get(LONG, base + CONNECT_EPOCH_OFFSET),
                0);
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }
}
