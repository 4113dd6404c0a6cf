package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client whose key's head does not answer waits for it, or for the membership to say it is gone, within its
 * failover wait; it waits without taking a core. It yielded in a loop before, and a thread waiting out a node's failure
 * used 97-99% of a core for the whole wait (1,941-1,991 ms of CPU in a 2,000 ms wait), the cores a small host's
 * recovering node and driver need, times every waiting thread.
 */
class HeadDownWaitTest
{
    private static final long[] IDS = {1, 2};
    private static final int KEYS = 32;
    private static final int FAILOVER_WAIT_MS = 1_000;

    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @Test
    void aReadWaitsForAHeadThatDoesNotAnswerWithoutTakingACore()
    {
        final StaticDirectory directory = new StaticDirectory()
            .membership(new Membership(1, 2, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        open.add(MemoryNode.start(open.add(memoryDriver(1, directory)), smallNode()));
        final Raas second = memoryDriver(2, directory);
        final MemoryNode two = MemoryNode.start(second, smallNode());
        final KvClient client = open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", 100),
            directory)), new KvClientContext().memoryNodes(IDS).replicas(2).failoverWaitMs(FAILOVER_WAIT_MS)));
        for (int i = 0; i < KEYS; i++)
        {
            client.put(bytes("key-" + i), bytes("value " + i));
        }
        // gone without a word: the membership still names it live, so a read of a key it heads waits the whole wait
        two.close();
        second.close();

        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int waited = 0;
        int read = 0;
        for (int i = 0; i < KEYS && (waited < 2 || read == 0); i++)
        {
            final byte[] key = bytes("key-" + i);
            final long cpuBefore = threads.getCurrentThreadCpuTime();
            final long wallBefore = System.nanoTime();
            try
            {
                assertEquals("value " + i, new String(client.get(key), StandardCharsets.UTF_8));
                read++;
                continue;
            }
            catch (final KvException headDown)
            {
                waited++;
            }
            final long wall = System.nanoTime() - wallBefore;
            final long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
            assertTrue(wall >= FAILOVER_WAIT_MS * 1_000_000L, "the read waited its failover wait: " + wall + " ns");
            // a quarter: a waiting thread reads the membership and tries the head now and then, no more
            assertTrue(cpu < wall / 4, "CPU used while waiting " + cpu / 1_000_000 + " ms of " + wall / 1_000_000 +
                " ms");
        }
        assertTrue(waited >= 2, "keys the node that went away heads: " + waited);
        assertTrue(read > 0, "keys of the node that is up read on");
    }

    private static Raas memoryDriver(final long id, final StaticDirectory directory)
    {
        return RaasDriver.start(Opened.driver("shm", id).role(NodeRecord.ROLE_MEMORY), directory);
    }

    private static MemoryNodeContext smallNode()
    {
        return new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
