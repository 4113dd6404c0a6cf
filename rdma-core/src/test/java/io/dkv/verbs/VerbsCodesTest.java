package io.dkv.verbs;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Opcodes and statuses travel between processes (shm rings, tcp frames) as ibverbs' numbers, which each enum gives by
 * its declaration order: these pin that order to ibverbs' numbering.
 */
class VerbsCodesTest
{
    @Test
    void codesAreIbverbsNumbersAndReadBack()
    {
        assertEquals(List.of(0, 5, 10, 12, 13, 21), Stream.of(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR,
            WcStatus.REM_ACCESS_ERR, WcStatus.RETRY_EXC_ERR, WcStatus.RNR_RETRY_EXC_ERR, WcStatus.GENERAL_ERR)
            .map(WcStatus::code).toList());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), Stream.of(Opcode.RDMA_WRITE, Opcode.RDMA_WRITE_WITH_IMM, Opcode.SEND,
            Opcode.SEND_WITH_IMM, Opcode.RDMA_READ, Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD)
            .map(Opcode::code).toList());
        Stream.of(WcStatus.values()).forEach(status -> assertEquals(status, WcStatus.fromCode(status.code())));
        Stream.of(Opcode.values()).forEach(opcode -> assertEquals(opcode, Opcode.fromCode(opcode.code())));
        assertEquals(WcStatus.GENERAL_ERR, WcStatus.fromCode(22), "an unknown status reads as GENERAL_ERR");
        assertNull(Opcode.fromCode(7), "an unknown opcode reads as none");
    }
}
