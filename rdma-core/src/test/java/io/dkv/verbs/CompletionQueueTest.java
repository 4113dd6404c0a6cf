package io.dkv.verbs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completion queues hold what their depth allows and say so when more was pending; devices release
 * what they hold when closed.
 */
class CompletionQueueTest extends TwoNodeTest
{
    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aQueueThatOverrunsSaysSoOnPoll(final String provider)
    {
        open(provider);
        final CompletionQueue small = a.device.createCq(4);
        final QueuePair[] qps =
            a.connectRc(b, new QpInitAttributes().type(QpType.RC).cq(small),
                new QpInitAttributes().type(QpType.RC).cq(b.cq));
        final SendWorkRequest write = new SendWorkRequest().opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(a.region, 0, 8).remote(b.region.address(), b.region.rkey());
        for (int i = 0; i < 10; i++)
        {
            qps[0].postSend(write.wrId(i));
        }
        final WorkCompletion[] wcs = {new WorkCompletion()};
        final long deadline = System.nanoTime() + 5_000_000_000L;
        VerbsException overrun = null;
        while (overrun == null && System.nanoTime() < deadline)
        {
            try
            {
                Thread.sleep(10);
                small.poll(wcs, 0);
            }
            catch (final VerbsException ex)
            {
                overrun = ex;
            }
            catch (final InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
        }
        assertTrue(overrun != null && overrun.getMessage().contains("overran"), String.valueOf(overrun));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aQueueTooDeepForTheDeviceIsRefused(final String provider)
    {
        a = TestNode.open(provider);
        final int max = a.device.attributes().maxCqe();
        final VerbsException error = assertThrows(VerbsException.class, () -> a.device.createCq(max + 1));
        assertTrue(error.getMessage().contains(String.valueOf(max + 1)), error.getMessage());
        assertThrows(VerbsException.class, () -> a.device.createCq(0));
    }

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void aClosedDeviceRefusesWorkAndLeavesNothingBehind(final String provider)
    {
        a = TestNode.open(provider);
        final Device device = a.device;
        final Path shmDirectory = new VerbsContext().shmDirectory().resolve("dkv-shm")
            .resolve(String.format("%016x", provider.equals("shm") ? device.address().shmDeviceId() : 0));
        if (provider.equals("shm"))
        {
            assertTrue(Files.isDirectory(shmDirectory), shmDirectory + " exists while the device is open");
        }
        a.close();
        a = null;
        assertThrows(VerbsException.class, device::allocPd);
        assertThrows(VerbsException.class, () -> device.createCq(4));
        assertFalse(Files.exists(shmDirectory), shmDirectory + " is gone after close");
        if (provider.equals("tcp"))
        {
            final java.net.InetSocketAddress listening = device.address().tcpSocketAddress();
            assertThrows(java.io.IOException.class, () -> java.nio.channels.SocketChannel.open(listening).close(),
                "the NIC engine no longer listens");
        }
        assertEquals(provider, device.provider());
    }
}
