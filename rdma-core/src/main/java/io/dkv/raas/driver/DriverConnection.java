package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A logical connection of the embedded driver. It is small (its vQPN, its route, its credits and
 * handler); messaging state is added only when the connection carries messages.
 */
final class DriverConnection implements Connection
{
    private static final java.lang.invoke.VarHandle CLOSED;

    static
    {
        try
        {
            CLOSED = java.lang.invoke.MethodHandles.lookup().findVarHandle(DriverConnection.class, "closed", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final RaasDriver driver;
    private final int vqpn;
    private final CompletionHandler handler;
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile NodeRoute route;
    /** The region of the last request, known to be owned: repeated requests skip the lookup. */
    private RemoteRegion lastOwned;
    private volatile boolean closed;
    volatile MessageChannel channel;
    /** What admission counts of a connection a peer opened to a listener here; null for one opened here. */
    ConnectAdmission.Inbound inbound;

    DriverConnection(final RaasDriver driver, final int vqpn, final NodeRoute route, final CompletionHandler handler)
    {
        this.driver = driver;
        this.vqpn = vqpn;
        this.route = route;
        this.handler = handler;
    }

    public int vqpn()
    {
        return vqpn;
    }

    public long nodeId()
    {
        return route.node.id();
    }

    NodeRoute route()
    {
        final NodeRoute current = route;
        if (current.stale)
        {
            try
            {
                route = driver.route(current.node.id());
            }
            catch (final RaasException gone)
            {
                return current;
            }
        }
        return route;
    }

    public boolean isMessaging()
    {
        final MessageChannel channel = this.channel;
        return channel != null && channel.isEstablished();
    }

    boolean isClosed()
    {
        return closed;
    }

    public int outstanding()
    {
        return outstanding.get();
    }

    // ---- one-sided ----

    public void read(final RemoteRegion region, final long offset, final MemorySegment dst, final long dstOffset, final int length)
    {
        final RequestSlot slot = oneSided(Opcode.RDMA_READ, region, offset, dst, dstOffset, length, 0, 0, true, 0);
        awaitSync(slot, region, offset, length);
    }

    public void write(final RemoteRegion region, final long offset, final MemorySegment src, final long srcOffset, final int length)
    {
        final RequestSlot slot = oneSided(Opcode.RDMA_WRITE, region, offset, src, srcOffset, length, 0, 0, true, 0);
        awaitSync(slot, region, offset, length);
    }

    public long cas(final RemoteRegion region, final long offset, final long expected, final long desired)
    {
        final RequestSlot slot = oneSided(Opcode.ATOMIC_CMP_AND_SWP, region, offset, null, 0, 8, expected, desired, true, 0);
        return awaitSync(slot, region, offset, 8);
    }

    public long faa(final RemoteRegion region, final long offset, final long delta)
    {
        final RequestSlot slot = oneSided(Opcode.ATOMIC_FETCH_AND_ADD, region, offset, null, 0, 8, delta, 0, true, 0);
        return awaitSync(slot, region, offset, 8);
    }

    public void readAsync(
        final RemoteRegion region, final long offset, final MemorySegment dst, final long dstOffset, final int length, final long token)
    {
        oneSided(Opcode.RDMA_READ, region, offset, dst, dstOffset, length, 0, 0, false, token);
    }

    public void writeAsync(
        final RemoteRegion region, final long offset, final MemorySegment src, final long srcOffset, final int length, final long token)
    {
        oneSided(Opcode.RDMA_WRITE, region, offset, src, srcOffset, length, 0, 0, false, token);
    }

    public void casAsync(final RemoteRegion region, final long offset, final long expected, final long desired, final long token)
    {
        oneSided(Opcode.ATOMIC_CMP_AND_SWP, region, offset, null, 0, 8, expected, desired, false, token);
    }

    public void faaAsync(final RemoteRegion region, final long offset, final long delta, final long token)
    {
        oneSided(Opcode.ATOMIC_FETCH_AND_ADD, region, offset, null, 0, 8, delta, 0, false, token);
    }

    public void flush()
    {
        driver.drainSubmissions();
    }

    /**
     * Wait for a synchronous request; its description is built only if it fails.
     */
    private long awaitSync(final RequestSlot slot, final RemoteRegion region, final long offset, final int length)
    {
        final Opcode opcode = slot.opcode;
        final int status = driver.awaitStatus(slot);
        final long value = slot.value;
        driver.releaseSlot(slot);
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " failed: " + RaasStatus.describe(status));
        }
        return value;
    }

    private String describe(final String operation, final RemoteRegion region, final long offset, final int length)
    {
        return String.format("%s of %d bytes at offset %d of region '%s' on node %d (vQPN 0x%x)",
            operation, length, offset, region.name(), region.nodeId(), vqpn);
    }

    private RequestSlot oneSided(
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final MemorySegment local,
        final long localOffset,
        final int length,
        final long compareAdd,
        final long swap,
        final boolean sync,
        final long token)
    {
        return oneSided(opcode, region, offset, local, localOffset, length, compareAdd, swap, sync, token, null, 0);
    }

    /**
     * An asynchronous request whose local buffer is already registered memory (a standalone
     * driver's client data area): no copy, no lookup.
     */
    void submitRegistered(
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final MemoryRegion localRegion,
        final long localOffset,
        final int length,
        final long compareAdd,
        final long swap,
        final long token)
    {
        oneSided(opcode, region, offset, null, 0, length, compareAdd, swap, false, token, localRegion, localOffset);
    }

    private RequestSlot oneSided(
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final MemorySegment local,
        final long localOffset,
        final int length,
        final long compareAdd,
        final long swap,
        final boolean sync,
        final long token,
        final MemoryRegion registeredLocal,
        final long registeredOffset)
    {
        if (closed)
        {
            throw new RaasException(String.format("connection vQPN 0x%x is closed", vqpn));
        }
        final int verdict = driver.check(region, offset, length, Access.requiredFor(opcode), opcode.isAtomic(), region == lastOwned);
        if (verdict != RaasStatus.SUCCESS)
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: " + RaasStatus.describe(verdict));
        }
        if (region.nodeId() != route.node.id())
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: the connection goes to node " +
                route.node.id());
        }
        if (local != null && (localOffset < 0 || localOffset > local.byteSize() - length))
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: local buffer of " +
                local.byteSize() + " bytes has no " + length + " bytes at offset " + localOffset);
        }
        lastOwned = region;
        if (!sync)
        {
            acquireCredit();
        }
        final RequestSlot slot = driver.acquireSlot();
        slot.sync = sync;
        slot.token = token;
        slot.handler = handler;
        driver.prepareOneSided(slot, this, opcode, region, offset, local, localOffset, length, registeredLocal, registeredOffset);
        if (opcode.isAtomic())
        {
            slot.wr.compareAdd(compareAdd).swap(swap);
        }
        driver.countRequest(slot.route);
        driver.submit(slot);
        return slot;
    }

    private void acquireCredit()
    {
        final int credits = driver.context.connectionCredits();
        int spins = 0;
        while (true)
        {
            final int current = outstanding.get();
            if (current < credits)
            {
                if (outstanding.compareAndSet(current, current + 1))
                {
                    return;
                }
                continue;
            }
            if (driver.poll() == 0)
            {
                RaasDriver.idle(++spins);
            }
            if (closed)
            {
                throw new RaasException(String.format("connection vQPN 0x%x is closed", vqpn));
            }
        }
    }

    void onCompleted()
    {
        outstanding.decrementAndGet();
    }

    // ---- two-sided ----

    private MessageChannel requireChannel()
    {
        final MessageChannel channel = this.channel;
        if (channel == null || !channel.isEstablished())
        {
            throw new RaasException(String.format("connection vQPN 0x%x to node %d carries no messages (open it with connect)",
                vqpn, nodeId()));
        }
        return channel;
    }

    public void send(final MemorySegment src, final long offset, final int length, final int flags)
    {
        requireChannel().send(src, offset, length, flags);
    }

    public int recv(final MemorySegment dst, final long offset, final int maxLength, final Duration timeout)
    {
        return requireChannel().recv(dst, offset, maxLength, timeout);
    }

    public boolean isReadable()
    {
        final MessageChannel channel = this.channel;
        return closed || (channel != null && channel.isReadable());
    }

    public ReceivedMessage recvZeroCopy(final Duration timeout)
    {
        return requireChannel().recvZeroCopy(timeout);
    }

    /** Close: by the application, or by the driver reclaiming an unused inbound connection (either may come first). */
    public void close()
    {
        close(true);
    }

    /** @param tellPeer whether the peer hears of it (a CLOSE): not when a flood's connection makes room. */
    void close(final boolean tellPeer)
    {
        if (!CLOSED.compareAndSet(this, false, true))
        {
            return;
        }
        final MessageChannel channel = this.channel;
        if (channel != null)
        {
            channel.close(tellPeer);
        }
        releaseAll();
    }

    void closeQuietly()
    {
        if (CLOSED.compareAndSet(this, false, true))
        {
            releaseAll();
        }
    }

    private void releaseAll()
    {
        driver.release(this);
        final ConnectAdmission.Inbound inbound = this.inbound;
        if (inbound != null)
        {
            driver.messaging.admission.release(inbound);
        }
    }

    public String toString()
    {
        return String.format("connection{vqpn=0x%x, node=%d}", vqpn, nodeId());
    }
}
