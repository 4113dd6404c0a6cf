package io.dkv.client.txn;

/**
 * One operation of a history: a transaction, a single-key get or a put, with what it read and wrote.
 *
 * @param status {@link #NOT_INVOKED}, {@link #PENDING} (invoked, no answer: in flight, or its client crashed),
 *               {@link #OK}, {@link #FAILED} (certainly no effect) or {@link #INFO} (answered "unknown").
 * @param reads  the value it read per key, for the keys it read.
 * @param writes the value it writes per key; set once the writes are fixed, so that a pending or unknown operation
 *               with writes may have taken effect and one without may not.
 */
record Op(int status, KeyInts reads, KeyInts writes)
{
    static final int NOT_INVOKED = 0;
    static final int PENDING = 1;
    static final int OK = 2;
    static final int FAILED = 3;
    static final int INFO = 4;

    static final Op NOT_YET = new Op(NOT_INVOKED, KeyInts.EMPTY, KeyInts.EMPTY);

    /** @return whether it answered ok or failed: only such an answer bounds when it took effect. */
    boolean answered()
    {
        return status == OK || status == FAILED;
    }

    /** @return whether it may or may not have taken effect: no certain answer, and writes fixed. */
    boolean maybe()
    {
        return (status == PENDING || status == INFO) && !writes.isEmpty();
    }

    Op with(final int status)
    {
        return new Op(status, reads, writes);
    }

    Op with(final KeyInts reads, final KeyInts writes)
    {
        return new Op(status, reads, writes);
    }

    String describe()
    {
        final String outcome = switch (status)
        {
            case NOT_INVOKED -> "not invoked";
            case PENDING -> "no answer";
            case OK -> "ok";
            case FAILED -> "failed";
            default -> "unknown";
        };
        return outcome + (reads.isEmpty() ? "" : " read " + reads.show(Values::show)) +
            (writes.isEmpty() ? "" : " write " + writes.show(Values::show));
    }
}
