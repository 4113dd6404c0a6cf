package io.dkv.compute;

import io.dkv.raas.NodeRecord;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * While a memory node's disk refuses writes (it filled up), a compute node with appendonly yes refuses writes and
 * PING as redis-server does while its AOF cannot be written ({@code -MISCONF Errors writing to the AOF file: ...}),
 * naming the node and the way out, inside MULTI (EXECABORT) and scripts too; reads are served, INFO persistence says
 * {@code aof_last_write_status:err}; once the disk has room again, writes are taken again by themselves. The disk is a
 * 16 MiB tmpfs filled by a file; skipped, saying why, where mounting is not permitted.
 */
class FullDiskMisconfTest
{
    @TempDir
    Path dir;
    private Path disk;
    private boolean mounted;

    @BeforeEach
    void mountSmallDisk() throws Exception
    {
        disk = Files.createDirectories(dir.resolve("disk"));
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", disk.toString())
            .redirectErrorStream(true).start();
        final String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        final boolean done = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        if (!done)
        {
            System.out.println("FullDiskMisconfTest skipped: cannot mount a 16 MiB tmpfs to fill (" + said + ")");
        }
        Assumptions.assumeTrue(done, "mounting a tmpfs is not permitted here: " + said);
        mounted = true;
    }

    @AfterEach
    void unmount() throws Exception
    {
        if (mounted)
        {
            new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void writesAreRefusedWithMisconfWhileAMemoryNodesDiskIsFullAndTakenAgainOnceItHasRoom() throws Exception
    {
        try (MetaCluster cluster = new MetaCluster(dir.resolve("meta"), disk.resolve("memory"));
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).bindAddress("127.0.0.1")
                .ioThreads(1).warmupRounds(0).appendOnly("yes").appendFsync("everysec")
                .raas(cluster.node(cluster.base + 2, NodeRecord.ROLE_COMPUTE), true));
            RawResp resp = new RawResp(node.port()))
        {
            assertEquals("+OK", resp.call("SET", "before", "kept"));
            final Path filler = disk.resolve("filler");
            fill(filler);
            final String value = "v".repeat(1000);
            String reply = "+OK";
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; reply.equals("+OK") && System.nanoTime() < deadline; i++)
            {
                reply = resp.call("SET", "during-" + i, value);
                if (reply.equals("+OK") && i % 100 == 99)
                {
                    Thread.sleep(50);
                }
            }
            assertTrue(reply.startsWith("-MISCONF Errors writing to the AOF file: memory node ") &&
                reply.contains("--data-dir"), reply);
            assertTrue(resp.call("INFO", "persistence").contains("aof_last_write_status:err"));
            assertTrue(resp.call("PING").startsWith("-MISCONF"), "PING too, as redis");
            assertEquals("$kept", resp.call("GET", "before"), "reads are served");
            assertEquals("+OK", resp.call("MULTI"));
            assertTrue(resp.call("SET", "in-multi", "v").startsWith("-MISCONF"));
            assertEquals("-EXECABORT Transaction discarded because of previous errors.", resp.call("EXEC"));
            assertTrue(resp.call("EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "in-script")
                .startsWith("-MISCONF"));
            assertEquals(":1", resp.call("EVAL", "return redis.call('exists', KEYS[1])", "1", "before"),
                "a script's reads run");

            Files.delete(filler);
            MetaCluster.await("writes taken again", () -> call(resp, "SET", "after", "v").equals("+OK"));
            assertTrue(resp.call("INFO", "persistence").contains("aof_last_write_status:ok"));
            assertEquals("+PONG", resp.call("PING"));
        }
    }

    private static String call(final RawResp resp, final String... words)
    {
        try
        {
            return resp.call(words);
        }
        catch (final Exception ex)
        {
            throw new AssertionError(ex);
        }
    }

    /** Take every byte the disk has left. */
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
}
