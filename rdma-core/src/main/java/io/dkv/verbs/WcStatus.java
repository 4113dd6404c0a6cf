package io.dkv.verbs;

/**
 * Work completion status, as {@code enum ibv_wc_status}: declared in its order, so that a status's {@link #code()},
 * its ordinal, is its number there (SUCCESS 0, REM_ACCESS_ERR 10, GENERAL_ERR 21).
 */
public enum WcStatus
{
    SUCCESS,
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    LOC_PROT_ERR,
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    REM_INV_REQ_ERR,
    REM_ACCESS_ERR,
    REM_OP_ERR,
    RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR;

    private static final WcStatus[] BY_CODE = values();

    public int code()
    {
        return ordinal();
    }

    public static WcStatus fromCode(final int code)
    {
        if (code < 0 || code >= BY_CODE.length)
        {
            return GENERAL_ERR;
        }
        return BY_CODE[code];
    }
}
