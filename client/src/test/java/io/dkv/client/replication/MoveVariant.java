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
    TWO_PHASES_APART
}
