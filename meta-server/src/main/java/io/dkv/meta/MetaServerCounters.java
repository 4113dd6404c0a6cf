package io.dkv.meta;

import io.dkv.agent.SystemCounters;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * A MetaServer's {@link MetaServerCounter}s, written by its service agent alone (hence {@code incrementRelease}):
 * each RPC frame, counted by the request's type, and each refusal by why.
 */
final class MetaServerCounters
{
    private final SystemCounters<MetaServerCounter> counters;
    /** By request type: a frame's counter in one array load; null for a type that is no request. */
    private final AtomicCounter[] byType = new AtomicCounter[128];
    private final AtomicCounter frames;
    private final AtomicCounter unauthenticated;
    private final AtomicCounter forbidden;
    private final AtomicCounter refused;
    private final AtomicCounter snapshots;

    MetaServerCounters(final CountersManager manager)
    {
        counters = new SystemCounters<>(manager, MetaServerCounter.TYPE_ID, MetaServerCounter.values());
        frames = counters.get(MetaServerCounter.FRAMES);
        unauthenticated = counters.get(MetaServerCounter.REFUSED_UNAUTHENTICATED);
        forbidden = counters.get(MetaServerCounter.REFUSED_FORBIDDEN);
        refused = counters.get(MetaServerCounter.REFUSED_OTHER);
        snapshots = counters.get(MetaServerCounter.SNAPSHOTS_INSTALLED);
        byType[TYPE_BOOTSTRAP] = counters.get(MetaServerCounter.REQUESTS_BOOTSTRAP);
        byType[TYPE_REGISTER_NODE] = counters.get(MetaServerCounter.REQUESTS_REGISTER_NODE);
        byType[TYPE_HEARTBEAT] = counters.get(MetaServerCounter.REQUESTS_HEARTBEAT);
        byType[TYPE_DEREGISTER_NODE] = counters.get(MetaServerCounter.REQUESTS_DEREGISTER_NODE);
        byType[TYPE_PUBLISH_REGION] = counters.get(MetaServerCounter.REQUESTS_PUBLISH_REGION);
        byType[TYPE_WITHDRAW_REGION] = counters.get(MetaServerCounter.REQUESTS_WITHDRAW_REGION);
        byType[TYPE_MARK_LIVE] = counters.get(MetaServerCounter.REQUESTS_MARK_LIVE);
        for (final byte type : new byte[]{TYPE_BEGIN_ADD, TYPE_BEGIN_DRAIN, TYPE_ADVANCE_MEMBERSHIP,
            TYPE_ABORT_MEMBERSHIP})
        {
            byType[type] = counters.get(MetaServerCounter.REQUESTS_MEMBERSHIP);
        }
        for (final byte type : new byte[]{TYPE_REPLICATE_NODE, TYPE_REPLICATE_NODE_REMOVAL, TYPE_REPLICATE_REGION,
            TYPE_REPLICATE_REGION_REMOVAL, TYPE_REPLICATE_MEMBERS, TYPE_SNAPSHOT, TYPE_CATCH_UP})
        {
            byType[type] = counters.get(MetaServerCounter.REQUESTS_FROM_PEER);
        }
    }

    AtomicCounter get(final MetaServerCounter counter)
    {
        return counters.get(counter);
    }

    void onFrame()
    {
        frames.incrementRelease();
    }

    /** An authentic request of that type, about to be served. */
    void onRequest(final byte type)
    {
        final AtomicCounter counter = type >= 0 ? byType[type] : null;
        if (counter != null)
        {
            counter.incrementRelease();
        }
    }

    /** A request refused with that status. */
    void onRefused(final int status)
    {
        if (status == STATUS_UNAUTHENTICATED)
        {
            unauthenticated.incrementRelease();
        }
        else if (status == STATUS_FORBIDDEN)
        {
            forbidden.incrementRelease();
        }
        else
        {
            refused.incrementRelease();
        }
    }

    void onSnapshotInstalled()
    {
        snapshots.incrementRelease();
    }
}
