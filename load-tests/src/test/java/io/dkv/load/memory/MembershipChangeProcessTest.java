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

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memory tier grows and shrinks while a client writes and reads, as an operator does it: a memory node started
 * with {@code --join} is added and moves its keys to itself, and {@code memory-node --drain ID} moves a member's keys
 * to the others and reports that it can be stopped. Afterwards every key holds its last acknowledged write, served by
 * the new membership, and no read during either change returned a write older than one acknowledged before it began.
 * Real processes: a MetaServer keeping two copies, memory nodes, the drain command; the client here.
 */
class MembershipChangeProcessTest
{
    private static final long[] FOUNDERS = {241, 242};
    private static final long ADDED = 243;
    private static final int KEYS = 60;
    private static final int TIMEOUT_MS = 1_000;
    private static final int FAILOVER_WAIT_MS = 30_000;
    private static final Pattern LEFT = Pattern.compile("memory node (\\d+) has left the memory tier");

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLongArray acked = new AtomicLongArray(KEYS);
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();

    @Test
    void aNodeJoinsAndAnotherIsDrainedWhileAClientRuns(@TempDir final Path dir) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        try (RoleProcess meta = TcpRoles.metaServer(dir, secret, "--replicas", "2", "--founders",
                FOUNDERS[0] + "," + FOUNDERS[1]);
            RoleProcess first = memoryNode(dir, secret, meta, FOUNDERS[0]);
            RoleProcess second = memoryNode(dir, secret, meta, FOUNDERS[1]);
            Raas raas = TcpRoles.raas(secret, meta, 341, TIMEOUT_MS);
            KvClient client = KvClient.connect(raas, clientContext()))
        {
            for (int k = 0; k < KEYS; k++)
            {
                client.put(key(k), value(k, 0));
            }
            writer = client;
            final List<Thread> threads = List.of(Thread.ofPlatform().name("writer").start(this::write),
                Thread.ofPlatform().name("reader").start(this::read));
            try (RoleProcess added = memoryNode(dir, secret, meta, ADDED, "--join"))
            {
                final long joinedAt = System.nanoTime();
                awaitMembership(raas, m -> m.phase() == Membership.STEADY && m.placement(ADDED) == Membership.PLACED,
                    "memory node " + ADDED + " added");
                final long joinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinedAt);
                awaitCount(writes.get() + 50);

                final long drainedAt = System.nanoTime();
                try (RoleProcess drain = RoleProcess.start("drain of " + FOUNDERS[0], "256m",
                    Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Integer.toString(TIMEOUT_MS)),
                    List.of("memory-node", "--cluster-secret-file", secret.toString(), "--node-id", "342",
                        "--provider", "tcp", "--meta", meta.readyGroup(1), "--drain", Long.toString(FOUNDERS[0])),
                    LEFT, dir.resolve("drain.log")))
                {
                    assertEquals(Long.toString(FOUNDERS[0]), drain.readyGroup(1));
                }
                final long drainMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainedAt);
                awaitMembership(raas, m -> m.state(FOUNDERS[0]) == 0, "memory node " + FOUNDERS[0] + " drained");
                awaitCount(writes.get() + 50);
                running.set(false);
                for (final Thread thread : threads)
                {
                    thread.join();
                }
                System.out.printf("memory node %d joined in %,d ms, memory node %d drained in %,d ms, under %,d " +
                    "writes and %,d reads of %d keys%n", ADDED, joinMs, FOUNDERS[0], drainMs, writes.get(),
                    reads.get(), KEYS);
                assertEquals(List.of(), List.copyOf(failures), "no operation failed or read an old write");

                first.close();
                try (Raas later = TcpRoles.raas(secret, meta, 343, TIMEOUT_MS);
                    KvClient laterClient = KvClient.connect(later, clientContext()))
                {
                    for (int k = 0; k < KEYS; k++)
                    {
                        assertArrayEquals(value(k, acked.get(k)), laterClient.get(key(k)),
                            "key " + k + " on " + Arrays.toString(laterClient.replicasOf(key(k))) +
                            " once memory node " + FOUNDERS[0] + " has stopped");
                    }
                }
            }
        }
    }

    /** The client the load runs through, set before its threads start. */
    private volatile KvClient writer;

    private void write()
    {
        for (long round = 1; running.get(); round++)
        {
            for (int k = 0; k < KEYS && running.get(); k++)
            {
                final KvClient client = writer;
                try
                {
                    client.put(key(k), value(k, round));
                    acked.set(k, round);
                    writes.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    failures.add("write of key " + k + " round " + round + ": " + ex.getMessage());
                    return;
                }
                LockSupport.parkNanos(200_000);
            }
        }
    }

    private void read()
    {
        while (running.get())
        {
            final KvClient client = writer;
            for (int k = 0; k < KEYS && running.get(); k++)
            {
                final long floor = acked.get(k);
                try
                {
                    final byte[] held = client.get(key(k));
                    final String text = held == null ? "" : new String(held, StandardCharsets.UTF_8);
                    final long round = held == null ? -1 : Long.parseLong(text.substring(text.lastIndexOf('-') + 1));
                    if (round < floor)
                    {
                        failures.add("key " + k + " read round " + round + " after round " + floor + " was " +
                            "acknowledged");
                    }
                    reads.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    failures.add("read of key " + k + ": " + ex.getMessage());
                    return;
                }
            }
        }
    }

    private void awaitCount(final long at) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (writes.get() < at && failures.isEmpty())
        {
            assertTrue(System.nanoTime() < deadline, "writes: " + writes.get() + " of " + at + " in 60 s");
            Thread.sleep(10);
        }
    }

    private void awaitMembership(final Raas raas, final java.util.function.Predicate<Membership> done,
        final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Membership membership = raas.membership();
        while (!done.test(membership))
        {
            assertTrue(System.nanoTime() < deadline, what + " within 120 s: " + membership + "; " + failures);
            Thread.sleep(50);
            membership = raas.membership();
        }
    }

    private static KvClientContext clientContext()
    {
        return new KvClientContext().timeoutMs(TIMEOUT_MS).failoverWaitMs(FAILOVER_WAIT_MS).unavailableRetryMs(50);
    }

    private static RoleProcess memoryNode(final Path dir, final Path secret, final RoleProcess meta, final long id,
        final String... extra)
    {
        final List<String> arguments = new ArrayList<>(List.of("memory-node", "--cluster-secret-file",
            secret.toString(), "--node-id", Long.toString(id), "--provider", "tcp", "--meta", meta.readyGroup(1),
            "--index-groups", "1024", "--heap-chunks", "16"));
        arguments.addAll(List.of(extra));
        return RoleProcess.start("memory node " + id, "256m",
            Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Integer.toString(TIMEOUT_MS)), arguments,
            ReadyLines.MEMORY_NODE, dir.resolve("memory-" + id + ".log"));
    }

    private static byte[] key(final int k)
    {
        return ("change-key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k, final long round)
    {
        return ("value-" + k + "-" + round).getBytes(StandardCharsets.UTF_8);
    }
}
