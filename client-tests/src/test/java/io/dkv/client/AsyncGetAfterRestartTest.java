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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A GET carried by completions through the host's driver, by a thread that read a memory node before the node
 * restarted, ends: the driver, which knows the node's new incarnation by then, refuses the READs of the old one's
 * regions, the refusal completes them failed, and the GET goes the synchronous way, which reads the node anew. Before,
 * the refusal reached no handler and the future was never completed: {@code dkv check --through driver-async} ended
 * UNRECOVERED, every worker of its clients in {@code join()} after the nemesis killed and restarted a memory node.
 */
class AsyncGetAfterRestartTest
{
    private static final long NODE = 7;
    private static final byte[] KEY = bytes("key");
    /** A guard against hanging only: each GET here takes milliseconds. */
    private static final long GUARD_SECONDS = 60;
    /**
     * GETs this thread makes after the restart until one answers: each may meet a client thread that read the node
     * before too and fails once (here there is one such thread), never more.
     */
    private static final int TRIES = 3;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aGetOfTheNodesOldRegionsEndsAndALaterOneReadsTheNewIncarnation(final String provider) throws Exception
    {
        directory.membership(new Membership(1, 1, new long[] {NODE}, new int[] {Membership.LIVE}));
        // closed again at the end (closing twice does nothing), should the test stop before the restart
        final Raas first =
            open.add(RaasDriver.start(Opened.driver(provider, NODE).role(NodeRecord.ROLE_MEMORY), directory));
        final long firstEpoch = first.self().epoch();
        final MemoryNode firstNode = MemoryNode.start(first, node());
        final String name = "async-get-after-restart-test-" + ProcessHandle.current().pid() + "-" + provider;
        open.add(StandaloneDriver.launch(Opened.driver(provider, 100).driverName(name), directory));
        final Raas attached = open.add(AttachedRaas.attach(new RaasContext().driverName(name).requestSlots(1024)
            .clientDataBytes(1 << 20).timeoutMs(10_000)));
        final KvClient client = open.add(KvClient.connect(attached,
            new KvClientContext().memoryNodes(NODE).timeoutMs(9_000).asyncThreads(1)));

        client.put(KEY, bytes("first"));
        assertArrayEquals(bytes("first"), await(client.getAsync(KEY)), "before the restart");
        assertEquals(1, client.getsAnsweredByCompletions(), "read by completions, with the first incarnation's view");

        firstNode.close();
        first.close();
        // a later incarnation whatever the wall clock says (its epoch is what tells it from the first); empty, no disk
        final Raas second = open.add(RaasDriver.start(Opened.driver(provider, NODE).role(NodeRecord.ROLE_MEMORY)
            .epochClock(() -> Math.max(System.currentTimeMillis(), firstEpoch + 1)), directory));
        open.add(MemoryNode.start(second, node()));

        // another thread writes the key to the new incarnation: its requests make the host's driver read the node's
        // record again, after which it refuses requests naming the first incarnation's regions
        final AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        final Thread writer = new Thread(() ->
        {
            try
            {
                afterRestart(() -> client.put(KEY, bytes("second")));
            }
            catch (final Throwable ex)
            {
                writeFailure.set(ex);
            }
        }, "writer");
        writer.start();
        writer.join();
        assertNull(writeFailure.get(), "the write to the second incarnation");

        byte[] read = null;
        final StringBuilder failures = new StringBuilder();
        for (int i = 0; i < TRIES && read == null; i++)
        {
            try
            {
                read = await(client.getAsync(KEY));
            }
            catch (final ExecutionException ex)
            {
                failures.append("\n  try ").append(i + 1).append(": ").append(ex.getCause());
            }
        }
        assertArrayEquals(bytes("second"), read, () -> "after the restart, in " + TRIES + " tries:" + failures);
    }

    private static MemoryNodeContext node()
    {
        return new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16);
    }

    /**
     * @return the GET's answer.
     * @throws ExecutionException when it failed.
     * @throws AssertionError when it did not end within the guard: nothing completed its future.
     */
    private static byte[] await(final CompletableFuture<byte[]> get) throws Exception
    {
        try
        {
            return get.get(GUARD_SECONDS, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("a GET by completions did not end within " + GUARD_SECONDS + " s", ex);
        }
    }

    /** Run a write that may fail while the client's thread still reads the node's first incarnation. */
    private static void afterRestart(final Runnable write)
    {
        KvException last = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                write.run();
                return;
            }
            catch (final KvException ex)
            {
                last = ex;
            }
        }
        throw last;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
