package io.dkv.load.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientConfiguration;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With two copies of each key, a memory node killed with SIGKILL under load takes nothing with it:
 * reads of every key go on (a read of a key whose head died waits until the MetaServer declares it
 * down, then reads the other copy), writes of its keys go on once its lease has run out, no
 * acknowledged write is lost; started again, empty, it is refilled under the same load and made live,
 * and then serves the keys it heads; a client and a compute node started afterwards serve every key.
 * Real processes: a MetaServer keeping two copies, three memory nodes, writers and readers here.
 */
class MemoryNodeLossTest
{
    private static final long[] NODES = {231, 232, 233};
    private static final long DYING_NODE = 232;
    private static final int KEYS = 60;
    private static final int WRITERS = 2;
    private static final int TIMEOUT_MS = 1_000;
    /** Longer than the MetaServer's lease (5 s) and its check, with room for a loaded machine. */
    private static final int FAILOVER_WAIT_MS = 30_000;

    private final AtomicBoolean running = new AtomicBoolean(true);
    /** Per key: the last write acknowledged, and the last one tried (its outcome unknown when it failed). */
    private final AtomicLongArray acked = new AtomicLongArray(KEYS);
    private final AtomicLongArray tried = new AtomicLongArray(KEYS);
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final Queue<String> writeFailures = new ConcurrentLinkedQueue<>();
    private final Queue<String> readFailures = new ConcurrentLinkedQueue<>();
    private final AtomicLong killedAtNanos = new AtomicLong();
    private final AtomicLong firstWriteOfDeadNodesKeyNanos = new AtomicLong();

    @Test
    void readsGoOnWritesResumeAndNoAcknowledgedWriteIsLost(@TempDir final Path dir) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        try (RoleProcess meta = metaServer(dir, secret);
            RoleProcess first = memoryNode(dir, secret, meta, NODES[0]);
            RoleProcess third = memoryNode(dir, secret, meta, NODES[2]))
        {
            RoleProcess dying = memoryNode(dir, secret, meta, DYING_NODE, "memory-232-1.log");
            try (Raas raas = raas(secret, meta, 331);
                KvClient client = KvClient.connect(raas, clientContext()))
            {
                assertEquals(2, client.replicas(), "the MetaServer's count");
                for (int k = 0; k < KEYS; k++)
                {
                    client.put(key(k), value(k, 0));
                }
                final List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++)
                {
                    threads.add(Thread.ofPlatform().name("writer-" + w).start(writer(client, w)));
                }
                threads.add(Thread.ofPlatform().name("reader").start(reader(client)));
                awaitCount(writes, 200, "writes before the kill");
                final long writesBefore = writes.get();
                final long readsBefore = reads.get();
                final long steadyStart = System.nanoTime();
                Thread.sleep(500);
                final double steadyOps = (writes.get() - writesBefore + reads.get() - readsBefore) * 1e9 /
                    (System.nanoTime() - steadyStart);

                killedAtNanos.set(System.nanoTime());
                dying.kill();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (firstWriteOfDeadNodesKeyNanos.get() == 0)
                {
                    assertTrue(System.nanoTime() < deadline, "no write of the dead node's keys within 90 s: " +
                        writeFailures);
                    Thread.sleep(20);
                }
                final long writesAfter = writes.get();
                final long readsAfter = reads.get();
                final long afterStart = System.nanoTime();
                Thread.sleep(500);
                final double afterOps = (writes.get() - writesAfter + reads.get() - readsAfter) * 1e9 /
                    (System.nanoTime() - afterStart);

                // back, empty: it joins, is refilled under the same load, and is made live again
                dying = memoryNode(dir, secret, meta, DYING_NODE, "memory-232-2.log");
                final long restartedAt = System.nanoTime();
                final long writesRejoin = writes.get();
                final long readsRejoin = reads.get();
                final long rejoinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (raas.membership().state(DYING_NODE) != Membership.LIVE)
                {
                    assertTrue(System.nanoTime() < rejoinDeadline, "memory node " + DYING_NODE + " not live again " +
                        "within 120 s: " + raas.membership());
                    Thread.sleep(50);
                }
                final long rejoinNanos = System.nanoTime() - restartedAt;
                final double rejoinOps = (writes.get() - writesRejoin + reads.get() - readsRejoin) * 1e9 / rejoinNanos;
                running.set(false);
                for (final Thread thread : threads)
                {
                    thread.join();
                }
                System.out.printf("kill -9 of memory node %d: first write of one of its keys %d ms later; %.0f " +
                    "ops/s before, %.0f ops/s on the survivors; restarted empty, live again %d ms later (start, " +
                    "refill of %d keys' copies), %.0f ops/s meanwhile%n",
                    DYING_NODE, TimeUnit.NANOSECONDS.toMillis(firstWriteOfDeadNodesKeyNanos.get() -
                    killedAtNanos.get()), steadyOps, afterOps, TimeUnit.NANOSECONDS.toMillis(rejoinNanos), KEYS,
                    rejoinOps);

                assertEquals(List.of(), List.copyOf(readFailures), "reads never fail for a dead node");
                assertTrue(writeFailures.size() <= WRITERS, "only writes in flight at the kill may fail: " +
                    writeFailures);
                // the keys whose head is the node that came back are read from it now: its refilled copies
                for (int k = 0; k < KEYS; k++)
                {
                    assertHoldsAnAcknowledgedOrTriedWrite(k, client.get(key(k)), "the running client");
                }
                assertTrue(IntStream.range(0, KEYS).anyMatch(k -> client.replicasOf(key(k))[0] == DYING_NODE),
                    "some key is read from the node that came back");
                try (Raas later = raas(secret, meta, 332);
                    KvClient laterClient = KvClient.connect(later, clientContext());
                    RoleProcess computeNode = computeNode(dir, secret, meta);
                    Jedis redis = new Jedis(computeNode.readyGroup(2), Integer.parseInt(computeNode.readyGroup(3))))
                {
                    for (int k = 0; k < KEYS; k++)
                    {
                        assertHoldsAnAcknowledgedOrTriedWrite(k, laterClient.get(key(k)), "a client started later");
                        assertHoldsAnAcknowledgedOrTriedWrite(k, redis.get(key(k)), "a compute node started later");
                    }
                }
            }
            finally
            {
                dying.close();
            }
        }
    }

    private Runnable writer(final KvClient client, final int w)
    {
        return () ->
        {
            long seq = 0;
            while (running.get())
            {
                seq++;
                for (int k = w; k < KEYS && running.get(); k += WRITERS)
                {
                    tried.set(k, seq);
                    final long startedAt = System.nanoTime();
                    try
                    {
                        client.put(key(k), value(k, seq));
                    }
                    catch (final KvException ex)
                    {
                        writeFailures.add("key " + k + " write " + seq + ": " + ex.getMessage());
                        continue;
                    }
                    acked.set(k, seq);
                    writes.incrementAndGet();
                    // a write that started before the kill may end after it: only one started since counts
                    final long killedAt = killedAtNanos.get();
                    if (killedAt != 0 && startedAt - killedAt > 0 && holdsACopy(client, k))
                    {
                        firstWriteOfDeadNodesKeyNanos.compareAndSet(0, System.nanoTime());
                    }
                }
            }
        };
    }

    private Runnable reader(final KvClient client)
    {
        return () ->
        {
            while (running.get())
            {
                final int k = ThreadLocalRandom.current().nextInt(KEYS);
                try
                {
                    client.get(key(k));
                    reads.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    readFailures.add("key " + k + ": " + ex.getMessage());
                }
            }
        };
    }

    private static boolean holdsACopy(final KvClient client, final int k)
    {
        for (final long replica : client.replicasOf(key(k)))
        {
            if (replica == DYING_NODE)
            {
                return true;
            }
        }
        return false;
    }

    /** A key's value is its last acknowledged write or one tried after it whose outcome is unknown. */
    private void assertHoldsAnAcknowledgedOrTriedWrite(final int k, final byte[] held, final String by)
    {
        assertTrue(held != null, "key " + k + " has a value through " + by);
        final String text = new String(held, StandardCharsets.UTF_8);
        final long seq = Long.parseLong(text.substring(text.lastIndexOf('-') + 1));
        assertTrue(seq >= acked.get(k) && seq <= tried.get(k), "key " + k + " through " + by + " holds write " + seq +
            ", acknowledged up to " + acked.get(k) + ", tried up to " + tried.get(k));
    }

    private static void awaitCount(final AtomicLong count, final long at, final String what) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (count.get() < at)
        {
            assertTrue(System.nanoTime() < deadline, what + ": " + count.get() + " of " + at + " in 60 s");
            Thread.sleep(10);
        }
    }

    private static KvClientContext clientContext()
    {
        return new KvClientContext().timeoutMs(TIMEOUT_MS).failoverWaitMs(FAILOVER_WAIT_MS).unavailableRetryMs(50);
    }

    private static Raas raas(final Path secret, final RoleProcess meta, final long nodeId)
    {
        return TcpRoles.raas(secret, meta, nodeId, TIMEOUT_MS);
    }

    private static RoleProcess metaServer(final Path dir, final Path secret)
    {
        return TcpRoles.metaServer(dir, secret, "--replicas", "2", "--founders", "231,232,233");
    }

    private static RoleProcess memoryNode(final Path dir, final Path secret, final RoleProcess meta, final long id)
    {
        return memoryNode(dir, secret, meta, id, "memory-" + id + ".log");
    }

    private static RoleProcess memoryNode(
        final Path dir, final Path secret, final RoleProcess meta, final long id, final String log)
    {
        return RoleProcess.start("memory node " + id, "256m", Map.of(),
            List.of("memory-node", "--cluster-secret-file", secret.toString(), "--node-id", Long.toString(id),
                "--provider", "tcp", "--meta", meta.readyGroup(1), "--index-groups", "1024", "--heap-chunks", "8"),
            ReadyLines.MEMORY_NODE, dir.resolve(log));
    }

    private static RoleProcess computeNode(final Path dir, final Path secret, final RoleProcess meta)
    {
        return RoleProcess.start("compute node", "256m",
            Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Integer.toString(TIMEOUT_MS),
                KvClientConfiguration.FAILOVER_WAIT_MS_PROP_NAME, Integer.toString(FAILOVER_WAIT_MS)),
            List.of("compute-node", "--node-id", "431", "--port", "0", "--provider", "tcp",
                "--meta", meta.readyGroup(1), "--cluster-secret-file", secret.toString(),
                "--address", "127.0.0.1:0"), ReadyLines.COMPUTE_NODE, dir.resolve("compute.log"));
    }

    private static byte[] key(final int k)
    {
        return ("loss-key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k, final long seq)
    {
        return ("value-" + k + "-" + seq).getBytes(StandardCharsets.UTF_8);
    }
}
