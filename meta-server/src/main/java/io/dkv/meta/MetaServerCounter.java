package io.dkv.meta;

import io.dkv.agent.CounterDescriptor;

/**
 * The counters a MetaServer keeps (as Aeron's SystemCounterDescriptor), in its counters file beside those of its
 * driver ({@code ./dkv meta --counters}). Ids are kept across versions; a new counter takes the next one.
 */
public enum MetaServerCounter implements CounterDescriptor
{
    ERRORS(0, "Errors in the service agent"),
    FRAMES(1, "RPC frames handled"),
    REQUESTS_BOOTSTRAP(2, "Requests: BOOTSTRAP"),
    REQUESTS_REGISTER_NODE(3, "Requests: REGISTER_NODE"),
    REQUESTS_HEARTBEAT(4, "Requests: HEARTBEAT"),
    REQUESTS_DEREGISTER_NODE(5, "Requests: DEREGISTER_NODE"),
    REQUESTS_PUBLISH_REGION(6, "Requests: PUBLISH_REGION"),
    REQUESTS_WITHDRAW_REGION(7, "Requests: WITHDRAW_REGION"),
    REQUESTS_MARK_LIVE(8, "Requests: MARK_LIVE"),
    REQUESTS_MEMBERSHIP(9, "Requests: membership changes"),
    REQUESTS_FROM_PEER(10, "Requests from the peer MetaServer"),
    REFUSED_UNAUTHENTICATED(11, "Requests refused: not authentic"),
    REFUSED_FORBIDDEN(12, "Requests refused: forbidden"),
    REFUSED_OTHER(13, "Requests refused: other reasons"),
    SNAPSHOTS_INSTALLED(14, "Snapshots installed from the peer"),
    LEASE_CHECKS(15, "Lease checks"),
    OWN_STALLS(16, "Own stalls: every lease runs anew"),
    LEASES_RUN_OUT(17, "Leases run out: nodes removed with their regions");

    /** The type id a MetaServer's counters carry in its counters file, beside its driver's. */
    public static final int TYPE_ID = 3;

    private final int id;
    private final String label;

    MetaServerCounter(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    public int id()
    {
        return id;
    }

    public String label()
    {
        return label;
    }
}
