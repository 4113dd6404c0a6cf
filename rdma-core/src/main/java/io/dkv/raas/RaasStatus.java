package io.dkv.raas;

import io.dkv.verbs.WcStatus;

/**
 * Status codes of RaaS completions: 0 is success, 1 to 99 are the verbs work completion codes the
 * request ended with, 100 and above are requests RaaS refused before they reached a queue pair.
 */
public final class RaasStatus
{
    public static final int SUCCESS = 0;

    /** The range is not inside the region. */
    public static final int OUT_OF_BOUNDS = 100;
    /** An atomic address is not 8-byte aligned. */
    public static final int MISALIGNED = 101;
    /** The region does not grant this operation. */
    public static final int NOT_PERMITTED = 102;
    /** The region or buffer is not one this caller obtained from RaaS. */
    public static final int NOT_OWNED = 103;
    /** The node could not be reached or is gone. */
    public static final int UNREACHABLE = 104;
    /** The connection was closed while the request was outstanding. */
    public static final int CLOSED = 105;
    /** The request did not complete in time. */
    public static final int TIMED_OUT = 106;
    /**
     * An atomic flushed behind a request the transport gave up on: it may or may not have been executed, and is not
     * sent again (done twice, a compare-and-swap would fail on its own word).
     */
    public static final int OUTCOME_UNKNOWN = 107;

    private RaasStatus()
    {
    }

    public static int of(final WcStatus status)
    {
        return status.code();
    }

    public static String describe(final int status)
    {
        return switch (status)
        {
            case SUCCESS -> "SUCCESS";
            case OUT_OF_BOUNDS -> "OUT_OF_BOUNDS";
            case MISALIGNED -> "MISALIGNED";
            case NOT_PERMITTED -> "NOT_PERMITTED";
            case NOT_OWNED -> "NOT_OWNED";
            case UNREACHABLE -> "UNREACHABLE";
            case CLOSED -> "CLOSED";
            case TIMED_OUT -> "TIMED_OUT";
            case OUTCOME_UNKNOWN -> "OUTCOME_UNKNOWN";
            default -> status > 0 && status < 100 ? WcStatus.fromCode(status).name() : "STATUS_" + status;
        };
    }
}
