package io.dkv.load.check.store;

import io.dkv.client.KvClientConfiguration;
import io.dkv.agent.CountersStat;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checked store keeps one client through failures, as an application does, so that a run checks the client's own
 * recovery. It attached afresh after each failure before: with a memory node down, a run's clients attached a few
 * hundred times a second and kept every attachment until the store closed, until a client's heap ran out
 * (UNRECOVERED: its final reads never answered).
 */
class KvCheckedStoreTest
{
    private static final long[] IDS = {1, 2};
    private static final int FAILURES = 8;

    @TempDir
    Path data;

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void failuresLeaveTheStoreOnItsOneAttachment() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory()
            .membership(new Membership(1, 2, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        final String name = "checked-store-test-" + ProcessHandle.current().pid();
        try (Raas first = memoryDriver(1, directory);
            MemoryNode one = MemoryNode.start(first, new MemoryNodeContext().dataDir(data.resolve("1")));
            StandaloneDriver driver =
                StandaloneDriver.launch(RaasPair.context("shm", 100).driverName(name).timeoutMs(1_000), directory))
        {
            final Raas second = memoryDriver(2, directory);
            final MemoryNode two = MemoryNode.start(second, new MemoryNodeContext().dataDir(data.resolve("2")));
            // a read of a key whose node is down fails after the client's wait for a new head, 10 s by default
            System.setProperty(KvClientConfiguration.FAILOVER_WAIT_MS_PROP_NAME, "300");
            try (KvCheckedStore store = new KvCheckedStore(name, IDS, 500))
            {
                for (int i = 0; i < 2 * FAILURES; i++)
                {
                    store.put("key-" + i, bytes("value " + i));
                }
                two.close();
                second.close();

                // keys the node that is down heads fail
                int failures = 0;
                for (int i = 0; failures < FAILURES && i < 100 * FAILURES; i++)
                {
                    try
                    {
                        store.get("key-" + (i % (2 * FAILURES)));
                    }
                    catch (final RuntimeException expected)
                    {
                        failures++;
                    }
                }
                assertTrue(failures >= FAILURES, "operations failed: " + failures);

                assertEquals(1, CountersStat.open(driver.countersFile()).value("Clients attached"),
                    "attachments made over " + failures + " failures");
                assertEquals(1, driver.clientCount());
                assertTrue(aKeyReadsBack(store), "the store still works");
            }
            finally
            {
                System.clearProperty(KvClientConfiguration.FAILOVER_WAIT_MS_PROP_NAME);
            }
        }
    }

    /** @return whether a key kept on the node that is up reads back as written. */
    private static boolean aKeyReadsBack(final KvCheckedStore store)
    {
        for (int i = 0; i < 2 * FAILURES; i++)
        {
            try
            {
                if (Arrays.equals(bytes("value " + i), store.get("key-" + i)))
                {
                    return true;
                }
            }
            catch (final RuntimeException onTheNodeDown)
            {
                // the next key
            }
        }
        return false;
    }

    private static Raas memoryDriver(final long id, final StaticDirectory directory)
    {
        return RaasDriver.start(RaasPair.context("shm", id).role(NodeRecord.ROLE_MEMORY), directory);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
