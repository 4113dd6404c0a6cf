package io.dkv.raas.driver;

import io.dkv.agent.CounterDescriptor;
import io.dkv.verbs.Opcode;

/**
 * The counters every RaaS driver keeps (as Aeron's SystemCounterDescriptor), embedded or standalone: in the
 * standalone driver's counters file, in the counters file of the process that embeds the driver, or in memory
 * ({@link DriverCounters}). Ids are kept across versions; a new counter takes the next one.
 */
public enum DriverCounter implements CounterDescriptor
{
    ERRORS(0, "Errors in the driver's agents", "dkv_raas_errors_total"),
    QP_STALLS(1, "Queue pairs stalled", "dkv_raas_qp_stalls_total"),
    QP_RECYCLES(2, "Queue pairs recycled", "dkv_raas_qp_recycles_total"),
    CREDIT_WAITS(3, "Connection credit waits", "dkv_raas_credit_waits_total"),
    MESSAGE_CREDIT_WAITS(4, "Message credit waits", "dkv_raas_message_credit_waits_total"),
    RNR_RETRIES(5, "Receiver-not-ready retries", "dkv_raas_rnr_retries_total"),
    REQUESTS_FAILED(6, "Requests failed", "dkv_raas_requests_failed_total"),
    REQUESTS_RETRIED(7, "Requests retried after a flush", "dkv_raas_requests_retried_total"),
    // one per opcode, in Opcode's order: forOpcode finds them by its code
    REQUESTS_WRITE(8, "Requests: WRITE", "dkv_raas_requests_total{opcode=\"WRITE\"}"),
    REQUESTS_WRITE_WITH_IMM(9, "Requests: WRITE_WITH_IMM", "dkv_raas_requests_total{opcode=\"WRITE_WITH_IMM\"}"),
    REQUESTS_SEND(10, "Requests: SEND", "dkv_raas_requests_total{opcode=\"SEND\"}"),
    REQUESTS_SEND_WITH_IMM(11, "Requests: SEND_WITH_IMM", "dkv_raas_requests_total{opcode=\"SEND_WITH_IMM\"}"),
    REQUESTS_READ(12, "Requests: READ", "dkv_raas_requests_total{opcode=\"READ\"}"),
    REQUESTS_CAS(13, "Requests: CAS", "dkv_raas_requests_total{opcode=\"CAS\"}"),
    REQUESTS_FAA(14, "Requests: FAA", "dkv_raas_requests_total{opcode=\"FAA\"}"),
    CLIENTS_ATTACHED(15, "Clients attached", "dkv_raas_clients_attached_total"),
    CLIENTS_TIMED_OUT(16, "Clients removed as dead", "dkv_raas_clients_timed_out_total"),
    COMMANDS_UNBLOCKED(17, "Commands left by dead clients", "dkv_raas_commands_unblocked_total"),
    MESSAGES_ABANDONED(18, "Half-written messages dropped", "dkv_raas_messages_abandoned_total");

    /** The type id the driver's counters carry in a counters file, beside other roles' counters. */
    public static final int TYPE_ID = 1;

    private static final DriverCounter[] BY_OPCODE =
        {REQUESTS_WRITE, REQUESTS_WRITE_WITH_IMM, REQUESTS_SEND, REQUESTS_SEND_WITH_IMM, REQUESTS_READ, REQUESTS_CAS,
            REQUESTS_FAA};

    static
    {
        if (BY_OPCODE.length != Opcode.values().length)
        {
            throw new ExceptionInInitializerError(
                "a request counter for each of the " + Opcode.values().length + " opcodes, not " + BY_OPCODE.length);
        }
    }

    private final int id;
    private final String label;
    private final String metric;

    DriverCounter(final int id, final String label, final String metric)
    {
        this.id = id;
        this.label = label;
        this.metric = metric;
    }

    public int id()
    {
        return id;
    }

    public String label()
    {
        return label;
    }

    /** @return the counter's name in Prometheus text, with its labels: a compute node's {@code /metrics} shows it. */
    public String metric()
    {
        return metric;
    }

    /** @return the counter of requests of that opcode. */
    public static DriverCounter forOpcode(final Opcode opcode)
    {
        return BY_OPCODE[opcode.code()];
    }
}
