package io.dkv.raas;

import io.dkv.verbs.Opcode;

/**
 * The one-sided operations a {@link Connection} carries, and the verbs opcode each is posted as.
 * Only these four reach a queue pair through {@link Connection#oneSided}: a verbs opcode would let a
 * caller name a SEND or a WRITE with immediate, which consume the peer's receives.
 */
public enum OneSidedOperation
{
    READ(Opcode.RDMA_READ),
    WRITE(Opcode.RDMA_WRITE),
    CAS(Opcode.ATOMIC_CMP_AND_SWP),
    FAA(Opcode.ATOMIC_FETCH_AND_ADD);

    private final Opcode opcode;

    OneSidedOperation(final Opcode opcode)
    {
        this.opcode = opcode;
    }

    public Opcode opcode()
    {
        return opcode;
    }
}
