package io.dkv.checker.elle;

import java.util.List;

/**
 * The names under which the checker reports anomalies, after Adya and Elle.
 */
public final class AnomalyNames
{
    /** A cycle of write-write dependencies only (dirty write). */
    public static final String G0 = "G0";
    /** A read of an element appended by a transaction that failed (aborted read). */
    public static final String G1A = "G1a";
    /**
     * A read ending at an element its transaction later followed with another append to the key (intermediate read).
     */
    public static final String G1B = "G1b";
    /** A cycle of write-write and write-read dependencies, at least one write-read (circular information flow). */
    public static final String G1C = "G1c";
    /** A cycle with exactly one anti-dependency (read skew, lost update). */
    public static final String G_SINGLE = "G-single";
    /** A cycle with two or more anti-dependencies (write skew). */
    public static final String G2_ITEM = "G2-item";
    /** Two reads of a key where neither list is a prefix of the other: no single order of appends explains both. */
    public static final String INCOMPATIBLE_ORDER = "incompatible-order";
    /** A transaction's read disagrees with its own earlier reads and appends of the key. */
    public static final String INTERNAL = "internal";
    /** An element appended twice to a key, or read twice in one list. */
    public static final String DUPLICATE_ELEMENTS = "duplicate-elements";
    /** A read of an element that no transaction appended. */
    public static final String GARBAGE_READ = "garbage-read";
    /** An element an ok transaction appended that no read saw, though a read of the key began after it completed. */
    public static final String LOST_APPEND = "lost-append";
    /**
     * Appended to a cycle's name when the cycle needs a real-time dependency: it breaks strict serializability only.
     */
    public static final String REALTIME_SUFFIX = "-realtime";

    /** Every name, in the order reports list them. */
    public static final List<String> ALL = List.of(
        G0, G0 + REALTIME_SUFFIX, G1A, G1B, G1C, G1C + REALTIME_SUFFIX, G_SINGLE, G_SINGLE + REALTIME_SUFFIX,
        G2_ITEM, G2_ITEM + REALTIME_SUFFIX, INCOMPATIBLE_ORDER, INTERNAL, DUPLICATE_ELEMENTS, GARBAGE_READ,
        LOST_APPEND);

    private AnomalyNames()
    {
    }

    /** @return the position of the name in {@link #ALL}, for ordering reports. */
    static int rank(final String name)
    {
        final int rank = ALL.indexOf(name);
        if (rank < 0)
        {
            throw new IllegalArgumentException("unknown anomaly name '" + name + "', expected one of " + ALL);
        }
        return rank;
    }
}
