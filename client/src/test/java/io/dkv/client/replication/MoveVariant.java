package io.dkv.client.replication;

/**
 * The membership change as designed, and deliberately broken forms of it that the checker must catch (or, where the
 * design tolerates the change, shows harmless).
 */
enum MoveVariant
{
    /** The four phases, clients at most one phase apart. */
    DESIGN,

    /**
     * The design, with forcing that stops once the tail names a later write: READ the member, READ the tail, CAS
     * the member from the word read only while the tail still names this write. At r = 1 the tail is the head, so
     * a later writer may win it before this one's force lands; an unconditional force then leaves the member with
     * the older write.
     */
    FORCE_WHILE_TAIL_NAMES_IT,

    /** Broken: the driver goes from FILL straight to CLEANUP, with no SWITCH between them and no settling. */
    SKIP_SWITCH,

    /** Broken: a reader in SWITCH reads the head of the placement after the change alone. */
    SWITCH_READS_AFTER_HEAD,

    /** Broken: writers in CLEANUP do not write the members leaving the placement. */
    CLEANUP_SKIPS_LEAVING,

    /** Broken: the driver moves on while a client still acts on the phase before the previous one. */
    TWO_PHASES_APART,

    /**
     * Writes that go on through SWITCH (client/README.md, "Left"): the driver seals the key's tail before the change
     * once the replicas before it agree and the members entering hold their write, by a CAS from the word read. A
     * writer in SWITCH READs that tail first: unsealed, it chains over the placement before, forcing the entering
     * members (as in FILL); sealed, over the placement after, forcing the leaving ones (as in CLEANUP), its CAS of the
     * sealed tail keeping the seal. A CAS that expects the tail unsealed fails on a sealed one, and a writer whose tail
     * CAS so failed reads the membership again and starts over. CLEANUP follows once the key is sealed.
     */
    HANDOVER,

    /** Broken handover: the driver seals the tail before the members entering hold the write. */
    HANDOVER_SEAL_BEFORE_FILLED,

    /** Broken handover: a CAS of the sealed tail by a writer chaining over the placement after drops the seal. */
    HANDOVER_DROPS_SEAL,

    /**
     * Broken handover: a writer over the placement before goes on forcing the entering member once the tail it won
     * is sealed (its tail still names its write), over a write the tail after decided since.
     */
    HANDOVER_FORCES_PAST_SEAL,

    /**
     * Broken handover: the driver rolls a crashed writer's write forward from READs that landed in any order,
     * without reading the tail again: a head read after a newer write reached it is taken back to the older one.
     */
    HANDOVER_ROLLS_UNCHECKED,

    /**
     * The handover as built (client/README.md, "The handover"): a writer in SWITCH never chains over the placement
     * before. It seals the key itself as the driver does: READs the member entering, then the replicas before from the
     * tail to the head; once they agree and the member holds their write, CASes the tail from the word read to the
     * same word sealed (a tail read sealed ends it at once), then chains over the placement after. Otherwise it reads
     * again, and once the write in flight is a crashed writer's, copies it onto the member from the word read there,
     * or rolls it forward one replica nearer the head after READing the tail again. Writers seal while FILL's writers
     * may still run; the driver seals too, once they are gone.
     */
    WRITERS_SEAL,

    /** Broken: a writer seals the tail before the member entering holds the write. */
    WRITERS_SEAL_UNFILLED,

    /**
     * Broken: writers may seal while clients in FILL remain (a change with no SWITCH before its HANDOVER): a reader in
     * FILL reads the head before the change alone, which a write decided at the tail after it may never reach.
     */
    WRITERS_SEAL_EARLY;

    /** @return whether writers go on through SWITCH, deciding where the sealed tail says. */
    boolean handsOver()
    {
        return this == HANDOVER || this == HANDOVER_SEAL_BEFORE_FILLED || this == HANDOVER_DROPS_SEAL ||
            this == HANDOVER_FORCES_PAST_SEAL || this == HANDOVER_ROLLS_UNCHECKED || writersSeal();
    }

    /** @return whether a writer in SWITCH seals the key itself rather than chain over the placement before. */
    boolean writersSeal()
    {
        return this == WRITERS_SEAL || this == WRITERS_SEAL_UNFILLED || this == WRITERS_SEAL_EARLY;
    }
}
