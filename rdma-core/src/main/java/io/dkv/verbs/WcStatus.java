package io.dkv.verbs;

/**
 * Work completion status, as {@code enum ibv_wc_status} (same numeric codes).
 */
public enum WcStatus
{
    SUCCESS(0),
    LOC_LEN_ERR(1),
    LOC_QP_OP_ERR(2),
    LOC_EEC_OP_ERR(3),
    LOC_PROT_ERR(4),
    WR_FLUSH_ERR(5),
    MW_BIND_ERR(6),
    BAD_RESP_ERR(7),
    LOC_ACCESS_ERR(8),
    REM_INV_REQ_ERR(9),
    REM_ACCESS_ERR(10),
    REM_OP_ERR(11),
    RETRY_EXC_ERR(12),
    RNR_RETRY_EXC_ERR(13),
    LOC_RDD_VIOL_ERR(14),
    REM_INV_RD_REQ_ERR(15),
    REM_ABORT_ERR(16),
    INV_EECN_ERR(17),
    INV_EEC_STATE_ERR(18),
    FATAL_ERR(19),
    RESP_TIMEOUT_ERR(20),
    GENERAL_ERR(21);

    private static final WcStatus[] BY_CODE = values();

    private final int code;

    WcStatus(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
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
