package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A client attached to the host's standalone driver outlives a restart of that driver: once a driver runs under the
 * name again, the same {@link KvClient} writes and reads, and reads the membership, without being made again. Before,
 * the attached handle stayed bound to the files of the driver it first attached to, and every call failed for good
 * ("the membership of the memory tier was last read 61 s ago").
 */
class DriverRestartTest
{
    private static final long[] IDS = {1, 2};
    private static final int KEYS = 20;
    /** Generous: a loaded machine may take seconds to notice the driver gone and attach to the new one. */
    private static final long RECOVERY_NANOS = 30_000_000_000L;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();
    private final List<AutoCloseable> drivers = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theSameClientWorksAgainOnceItsDriverIsBack(final String provider) throws Exception
    {
        directory.membership(new Membership(1, 2, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        for (final long id : IDS)
        {
            final Raas raas = open.add(RaasDriver.start(
                Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            open.add(MemoryNode.start(raas, new MemoryNodeContext()));
        }
        final String name = "driver-restart-test-" + ProcessHandle.current().pid() + "-" + provider;
        final StandaloneDriver first =
            StandaloneDriver.launch(Opened.driver(provider, 100).driverName(name), directory);
        final Raas attached = AttachedRaas.attach(new RaasContext().driverName(name).timeoutMs(5_000));
        final KvClient client = KvClient.connect(attached, new KvClientContext().memoryNodes(IDS).timeoutMs(4_000));
        try
        {
            for (int i = 0; i < KEYS; i++)
            {
                client.put(bytes("key-" + i), bytes("before " + i));
            }

            assertEquals(1, attached.session(), "the first driver's session");
            first.close();
            final StandaloneDriver second =
                StandaloneDriver.launch(Opened.driver(provider, 100).driverName(name), directory);
            drivers.add(second);

            // the first operations may fail, saying the driver went; within the bound they succeed again
            final long deadline = System.nanoTime() + RECOVERY_NANOS;
            RuntimeException last = null;
            boolean recovered = false;
            while (!recovered && System.nanoTime() < deadline)
            {
                try
                {
                    assertArrayEquals(bytes("before 0"), client.get(bytes("key-0")), "key-0");
                    recovered = true;
                }
                catch (final KvException ex)
                {
                    last = ex;
                    Thread.sleep(100);
                }
            }
            if (!recovered)
            {
                throw new AssertionError("the client did not work again within " + RECOVERY_NANOS / 1_000_000_000L +
                    " s of its driver's restart", last);
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes("before " + i), client.get(bytes("key-" + i)), "key-" + i);
                client.put(bytes("key-" + i), bytes("after " + i));
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(bytes("after " + i), client.get(bytes("key-" + i)), "key-" + i);
            }
            assertNotNull(attached.membership(), "the membership, read through the new driver");
            assertEquals(2, attached.session(), "the second driver's: listeners and regions are made anew there");
        }
        finally
        {
            client.close();
            attached.close();
            for (final AutoCloseable driver : drivers)
            {
                driver.close();
            }
            first.close();
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
