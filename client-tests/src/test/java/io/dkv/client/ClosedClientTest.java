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

import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A client and its driver, closed, are let go by the threads that used them: a service that opens and closes clients
 * over its life (a test suite, a job that reconnects) on long-lived threads must not keep every closed one's
 * connections and mapped memory until those threads end.
 */
class ClosedClientTest
{
    private final Opened open = new Opened();
    private final ExecutorService longLived = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() throws Exception
    {
        longLived.shutdownNow();
        open.close();
    }

    @Test
    void aClosedClientAndItsDriverAreNotKeptByTheThreadsThatUsedThem() throws Exception
    {
        final long id = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
        final StaticDirectory directory = new StaticDirectory();
        directory.membership(new Membership(1, 1, new long[]{id}, new int[]{Membership.LIVE}));
        final Raas memory =
            open.add(RaasDriver.start(Opened.driver("shm", id).role(NodeRecord.ROLE_MEMORY), directory));
        open.add(MemoryNode.start(memory, new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16)));

        final WeakReference<Raas> driver = useAndClose(directory, id);

        for (int i = 0; i < 100 && driver.get() != null; i++)
        {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(driver.get(), "the closed driver is still reachable from a thread that used its client");
    }

    /** A client on its own driver, used by this thread and by a thread that lives on, then closed with its driver. */
    private WeakReference<Raas> useAndClose(final StaticDirectory directory, final long id) throws Exception
    {
        final Raas raas = RaasDriver.start(Opened.driver("shm", 100), directory);
        final KvClient client = KvClient.connect(raas, new KvClientContext().memoryNodes(new long[]{id}).replicas(1));
        try
        {
            client.put(bytes("here"), bytes("v"));
            longLived.submit(() -> client.put(bytes("there"), bytes("w"))).get();
            assertArrayEquals(bytes("w"), client.get(bytes("there")));
            assertArrayEquals(bytes("v"), longLived.submit(() -> client.get(bytes("here"))).get());
        }
        finally
        {
            client.close();
            raas.close();
        }
        return new WeakReference<>(raas);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
