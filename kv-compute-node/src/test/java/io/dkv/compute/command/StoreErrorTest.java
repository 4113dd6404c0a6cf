package io.dkv.compute.command;

import io.dkv.client.KvException;
import io.dkv.raas.RaasException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A RESP client is told a store error in a user's words: the transport's text (operation, region, queue pair,
 * completion status) that a memory node stopping mid-request leaves in the message is said as a failed connection,
 * wherever in the message and however deep in the causes it was; other errors are told as they are.
 */
class StoreErrorTest
{
    private static final String RAAS = "WRITE of a 32-byte message to node 101 (vQPN 0x10000b) failed: RETRY_EXC_ERR";

    @Test
    void aTransportFailureInTheCausesIsSaidAsAFailedConnection()
    {
        final RaasException transport = new RaasException(RAAS);
        final KvException request = new KvException("memory node 101 did not answer a request for the key on disk: " +
            RAAS, transport);
        final KvException write = new KvException("write of key 'r1' is on its replicas but was not confirmed on " +
            "disk: " + request.getMessage() + "; it has taken effect, durable or not", request);
        assertEquals("write of key 'r1' is on its replicas but was not confirmed on disk: memory node 101 did not " +
            "answer a request for the key on disk: " + StoreError.UNREACHABLE + "; it has taken effect, durable or not",
            StoreError.text(new CompletionException(write.getMessage(), write)));
    }

    @Test
    void aMetaServerThatCannotBeReachedIsSaidSoToo()
    {
        final RaasException meta = new RaasException("no MetaServer answered: MetaServer meta:1@shm:19dc (down: " +
            "connect to service 2 of node 1 failed: RETRY_EXC_ERR)");
        final KvException stale = new KvException("the membership of the memory tier was last read 3001 ms ago and " +
            "cannot be read now (" + meta.getMessage() + "): a client acts on none older than 3000 ms", meta);
        assertEquals("the membership of the memory tier was last read 3001 ms ago and cannot be read now (" +
            StoreError.UNREACHABLE + "): a client acts on none older than 3000 ms", StoreError.text(stale));
    }

    @Test
    void anErrorWithoutATransportFailureIsToldAsItIs()
    {
        final KvException full = new KvException("memory node 102 is full: no room left in its heap");
        assertEquals("memory node 102 is full: no room left in its heap", StoreError.text(full));
    }
}
