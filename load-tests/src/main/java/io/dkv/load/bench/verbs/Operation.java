package io.dkv.load.bench.verbs;

import io.dkv.verbs.Opcode;

import java.util.List;

/**
 * The one-sided operations the benchmark measures.
 */
public enum Operation
{
    READ(Opcode.RDMA_READ),
    WRITE(Opcode.RDMA_WRITE),
    CAS(Opcode.ATOMIC_CMP_AND_SWP);

    /** Atomics always work on one 8-byte word. */
    public static final int ATOMIC_SIZE = 8;

    private final Opcode opcode;

    Operation(final Opcode opcode)
    {
        this.opcode = opcode;
    }

    public Opcode opcode()
    {
        return opcode;
    }

    /**
     * @param requested the sizes asked for on the command line.
     * @return the sizes this operation is measured at: the requested ones, or the atomic size for CAS.
     */
    public List<Integer> sizes(final List<Integer> requested)
    {
        return opcode.isAtomic() ? List.of(ATOMIC_SIZE) : requested;
    }
}
