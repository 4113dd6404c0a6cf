package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node whose disk fills up keeps every key it was told of: the writes its key store refuses wait in its
 * memory and go to disk once the disk has room again (tried every fsync interval, the store opened again, as RocksDB
 * refuses every write on a handle once one failed); its index header says the disk failed, so that compute nodes
 * report it (INFO persistence) and refuse writes as redis does (MISCONF); a writer under durability sync is told its
 * key is not on disk, naming the way out. The disk is a real one that fills: a small tmpfs of its own, filled by a
 * file beside the data directory and emptied by deleting it. Skipped, saying why, where mounting is not permitted.
 */
class FullDiskTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;

    private final StaticDirectory directory = new StaticDirectory();
    @TempDir
    Path mountPoint;
    private boolean mounted;

    @BeforeEach
    void mountSmallDisk() throws Exception
    {
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs",
            mountPoint.toString()).redirectErrorStream(true).start();
        final String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        final boolean done = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        if (!done)
        {
            System.out.println("FullDiskTest skipped: cannot mount a 16 MiB tmpfs to fill (" + said + ")");
        }
        Assumptions.assumeTrue(done, "mounting a tmpfs is not permitted here: " + said);
        mounted = true;
    }

    @AfterEach
    void unmount() throws Exception
    {
        if (mounted)
        {
            new ProcessBuilder("umount", "-l", mountPoint.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void keysTheFullDiskRefusedGoToItOnceItHasRoomAndComeBackAfterARestart() throws Exception
    {
        final Path data = mountPoint.resolve("data");
        final MemoryNodeContext context = new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8)
            .dataDir(data).fsyncIntervalMs(100);
        Raas memoryRaas = RaasDriver.start(KvCluster.context("shm", NODE), directory);
        MemoryNode node = MemoryNode.start(memoryRaas, context);
        try (Raas clientRaas = RaasDriver.start(KvCluster.context("shm", CLIENT), directory);
            KvClient async = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE)
                .durability(Durability.ASYNC));
            KvClient sync = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE)
                .durability(Durability.SYNC)))
        {
            final MemoryNode written = node;
            async.put(bytes("before"), bytes("kept"));
            KvCluster.awaitTrue(() -> written.persistStats().keysPersisted() >= 1);

            final Path filler = mountPoint.resolve("filler");
            fill(filler);
            final byte[] value = new byte[1000];
            int put = 0;
            // acknowledged under async (everysec) while the disk refuses them: each must reach it later
            for (; put < 2000 && !failed(async); put++)
            {
                async.put(bytes("during-" + put), value);
            }
            final int during = put;
            assertTrue(failed(async), "the disk refused none of " + during + " keys of 1,000 bytes");
            for (int i = 0; i < 50; i++, put++)
            {
                async.put(bytes("during-" + put), value);
            }
            final KvException refused = assertThrows(KvException.class, () -> sync.put(bytes("sync"), bytes("v")));
            assertTrue(refused.getMessage().contains("its disk refused the write") &&
                refused.getMessage().contains("--data-dir"), refused.getMessage());
            final KvException pending = assertThrows(KvException.class, () -> sync.get(bytes("sync")));
            assertTrue(pending.getMessage().contains("its disk refused the write"), "a value never on disk is not " +
                "answered while it cannot be put there: " + pending.getMessage());

            Files.delete(filler);
            final int total = put;
            KvCluster.awaitTrue(() -> !failed(async));
            final MemoryNodeDisk disk = async.memoryNodeDisks().getFirst();
            assertTrue(disk.lastFsyncOk(), disk.toString());

            node.close();
            memoryRaas.close();
            memoryRaas = RaasDriver.start(KvCluster.context("shm", NODE), directory);
            node = MemoryNode.start(memoryRaas, context);
            assertEquals(total + 2, node.keysRecovered(), "every key: before, " + total + " during, and sync");
            for (int i = 0; i < total; i += 97)
            {
                final int key = i;
                assertArrayEquals(value, KvCluster.afterRestart(() -> async.get(bytes("during-" + key))));
            }
            assertFalse(failed(async));
        }
        finally
        {
            node.close();
            memoryRaas.close();
        }
    }

    private static boolean failed(final KvClient client)
    {
        final MemoryNodeDisk disk = client.memoryNodeDisks().getFirst();
        return disk.reachable() && !disk.lastFsyncOk();
    }

    /** Take every byte the disk has left, but for the node's next writes. */
    private static void fill(final Path filler) throws IOException
    {
        final byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler))
        {
            while (true)
            {
                out.write(block);
            }
        }
        catch (final IOException full)
        {
            if (!full.getMessage().contains("No space left"))
            {
                throw full;
            }
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
