package io.dkv.load.bench.hostile;

/**
 * What a hostile peer sends a NIC engine, from pure noise to requests a real peer could send.
 */
enum AttackKind
{
    /** Random bytes, after a HELLO or instead of one: the engine must cut the link off. */
    GARBAGE("random bytes", false),
    /** Requests that break the rules a little: a byte or two of a well-formed WRITE or atomic changed. */
    MUTATED("mutated requests", true),
    /**
     * Well-formed WRITEs and atomics a peer has no right to: on the MetaServer's read-only tables with
     * the right DC key, or with made-up rkeys; every one must be refused.
     */
    UNAUTHORIZED("unauthorized requests", true),
    /** Valid READs from DC initiators numbered at random, each leaving state if the engine kept it. */
    MADE_UP_QPNS("made-up DC initiators", false),
    /** Connections that never say HELLO, and more links from one address than it may hold. */
    CONNECTION_FLOOD("connection flood", false),
    /** MetaServer RPCs against a member's records without the cluster secret, some of them mutated. */
    UNAUTHENTICATED_RPCS("unauthenticated MetaServer RPCs", true),
    /** RaaS CONNECTs to the MetaServer's service, held and never used. */
    CONNECT_FLOOD("CONNECT flood on the MetaServer", false);

    private final String label;
    private final boolean unauthorized;

    AttackKind(final String label, final boolean unauthorized)
    {
        this.label = label;
        this.unauthorized = unauthorized;
    }

    String label()
    {
        return label;
    }

    /** @return true when every frame of the kind asks for what the peer has no right to: a SUCCESS is a breach. */
    boolean unauthorized()
    {
        return unauthorized;
    }
}
