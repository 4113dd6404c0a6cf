package io.dkv.raas.driver;

import io.dkv.raas.RaasContext;
import io.dkv.verbs.Device;
import io.dkv.verbs.ProtectionDomain;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * The driver's {@link SyncLane}s, one per platform thread that makes synchronous one-sided requests,
 * up to {@link RaasContext#syncLanes()}. A thread keeps its lane for its life; the lane of a thread
 * that ended goes to the next thread that asks. Threads beyond the bound, virtual threads (many and
 * short-lived: a lane each would be a queue pair each) and large transfers share the pipeline.
 */
final class SyncLanes
{
    /** What a thread holds when it asked and got no lane: it does not ask again on every request. */
    private static final Object NO_LANE = new Object();
    /** The most staging memory a lane holds: 64 threads' lanes take 4 MiB. */
    private static final int MAX_STAGING_BYTES = 64 * 1024;

    private final Device device;
    private final ProtectionDomain pd;
    private final Routes routes;
    private final RaasContext context;
    private final SyncLane[] lanes;
    private final ThreadLocal<Object> mine = new ThreadLocal<>();
    private final long stagingBytes;
    private int count;
    private int recyclesOfReplaced;
    private boolean closed;
    /** Every lane's recycles, counted by the lanes' owners. */
    private final AtomicCounter recycles;

    SyncLanes(
        final Device device, final ProtectionDomain pd, final Routes routes, final RaasContext context, final int count,
        final AtomicCounter recycles)
    {
        this.recycles = recycles;
        this.device = device;
        this.pd = pd;
        this.routes = routes;
        this.context = context;
        this.lanes = new SyncLane[count];
        // what the shared pipeline would copy anyway (up to its copy threshold) fits a lane, a GET's block too; a
        // threshold set far higher is not a lane's memory: past MAX_STAGING_BYTES requests take the pipeline
        this.stagingBytes =
            Math.max(Math.max(context.stagingBytes(), Math.min(context.copyThreshold(), MAX_STAGING_BYTES)), 64);
    }

    /** @return the most bytes a request may carry on a lane. */
    long stagingBytes()
    {
        return lanes.length == 0 ? 0 : stagingBytes;
    }

    /**
     * @return the calling thread's lane, claimed on its first request; null when it has none (the pipeline
     * carries its request).
     */
    SyncLane forCurrentThread()
    {
        final Object held = mine.get();
        if (held instanceof SyncLane lane && !lane.discarded)
        {
            return lane;
        }
        if (held == NO_LANE)
        {
            return null;
        }
        final Thread thread = Thread.currentThread();
        if (thread.isVirtual())
        {
            return null;
        }
        final SyncLane lane = claim(thread);
        mine.set(lane == null ? NO_LANE : lane);
        return lane;
    }

    private synchronized SyncLane claim(final Thread thread)
    {
        if (closed)
        {
            return null;
        }
        for (int i = 0; i < count; i++)
        {
            final SyncLane lane = lanes[i];
            if (!lane.discarded && !lane.owner.isAlive())
            {
                lane.owner = thread;
                return lane;
            }
        }
        int free = -1;
        for (int i = 0; i < count; i++)
        {
            if (lanes[i].discarded)
            {
                free = i;
                break;
            }
        }
        if (free < 0 && count == lanes.length)
        {
            return null;
        }
        final SyncLane lane;
        try
        {
            lane = new SyncLane(
                device, pd, routes, (int)stagingBytes, context.nanoClock(), context.timeoutMs(), recycles);
        }
        catch (final RuntimeException ex)
        {
            // the device has no more queue pairs or memory for one: this thread's requests share the pipeline
            return null;
        }
        lane.owner = thread;
        if (free >= 0)
        {
            recyclesOfReplaced += lanes[free].recycles;
        }
        lanes[free < 0 ? count++ : free] = lane;
        return lane;
    }

    /** @return lanes held by threads now. */
    synchronized int active()
    {
        int active = 0;
        for (int i = 0; i < count; i++)
        {
            if (!lanes[i].discarded && lanes[i].owner.isAlive())
            {
                active++;
            }
        }
        return active;
    }

    /** @return how often lanes' queue pairs were brought back after errors, discarded lanes included. */
    synchronized int recycles()
    {
        int recycles = 0;
        for (int i = 0; i < count; i++)
        {
            recycles += lanes[i].recycles;
        }
        return recycles + recyclesOfReplaced;
    }

    /** The driver closes: every lane's queue pair and memory go, and no thread gets another. */
    synchronized void close()
    {
        closed = true;
        for (int i = 0; i < count; i++)
        {
            if (!lanes[i].discarded)
            {
                lanes[i].discard();
            }
        }
    }

    /** How many lanes there are, for {@link RaasDriver#describeState}. */
    synchronized void describe(final StringBuilder text)
    {
        text.append(", sync lanes ").append(count).append(" of ").append(lanes.length);
    }
}
