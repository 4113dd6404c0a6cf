package io.dkv.raas.stream;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Byte streams between two embedded drivers: whatever sizes one end writes and the other reads, the reader
 * gets exactly the bytes written, in order, through direct and indirect transfers alike; an end's output
 * ends, the peer closing or dying ends or breaks the stream as a socket's would.
 */
class RaasStreamTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int SERVICE = 77;

    private final List<AutoCloseable> open = new ArrayList<>();
    private Raas a;
    private Raas b;

    private void nodes(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        a = RaasDriver.start(RaasPair.context(provider, 1), directory);
        b = RaasDriver.start(RaasPair.context(provider, 2), directory);
        open.add(b);
        open.add(a);
    }

    /** Threads of the test's own: the common pool has one thread on two cores, and ends here wait on each other. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private CompletableFuture<Void> run(final Runnable task)
    {
        return CompletableFuture.runAsync(task, threads);
    }

    private <T> CompletableFuture<T> supply(final Supplier<T> task)
    {
        return CompletableFuture.supplyAsync(task, threads);
    }

    @AfterEach
    void closeAll() throws Exception
    {
        threads.shutdownNow();
        for (int i = open.size() - 1; i >= 0; i--)
        {
            try
            {
                open.get(i).close();
            }
            catch (final RuntimeException ignored)
            {
                // the test that failed says why; a close that fails after it says nothing more
            }
        }
    }

    /** @return [client end on A, server end on B]. */
    private RaasStream[] pair(final StreamContext context)
    {
        final StreamListener listener = StreamListener.listen(b, SERVICE, context);
        open.add(listener);
        final CompletableFuture<RaasStream> accepted = supply(() -> listener.accept(WAIT));
        final RaasStream client = RaasStream.connect(a, b.self().id(), SERVICE, context);
        open.add(client);
        final RaasStream server = accepted.join();
        open.add(server);
        return new RaasStream[] {client, server};
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void randomWriteAndReadSizesDeliverTheExactStreamThroughBothModes(final String provider) throws Exception
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext().bufferBytes(64 * 1024));
        final Random random = new Random(provider.hashCode());
        final byte[] data = new byte[3 * 1024 * 1024];
        random.nextBytes(data);
        final MemorySegment source = a.allocateBuffer(data.length);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, source, 0, data.length);

        final CompletableFuture<Void> writer = run(() ->
        {
            // the reader's first read is into registered memory: its advertisement makes the first transfer direct
            awaitAdverts(ends[0], 1);
            final Random sizes = new Random(1);
            int at = 0;
            while (at < data.length)
            {
                // from a byte to more than the peer's stream buffer holds
                final int n = Math.min(data.length - at, sizes.nextInt(4) == 0 ? 1 + sizes.nextInt(100_000) :
                    1 + sizes.nextInt(3000));
                ends[0].write(source, at, n);
                at += n;
            }
            ends[0].shutdownOutput();
        });

        final MemorySegment registered = ends[1].allocateReceiveBuffer(256 * 1024);
        final byte[] got = new byte[data.length];
        int at = 0;
        int reads = 0;
        while (true)
        {
            // receives into registered memory may be advertised (direct); into the heap, only copied (indirect)
            final int want = 1 + random.nextInt(reads % 3 == 0 ? 200_000 : 5000);
            final MemorySegment into = reads % 2 == 0 ? registered : MemorySegment.ofArray(new byte[want]);
            final int n = ends[1].read(into, 0, Math.min(want, (int)into.byteSize()));
            reads++;
            if (n < 0)
            {
                break;
            }
            MemorySegment.copy(into, 0, MemorySegment.ofArray(got), at, n);
            at += n;
        }
        writer.join();
        assertEquals(data.length, at, "bytes read before the end of the stream");
        assertArrayEquals(data, got);
        final StreamCounters counters = ends[0].counters();
        assertTrue(counters.directTransfers() > 0 && counters.indirectTransfers() > 0, counters.toString());
        assertEquals(data.length, counters.directBytes() + counters.indirectBytes(), counters.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void postedReceivesAreFilledDirectlyBackToBack(final String provider)
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext());
        final int block = 256 * 1024;
        final int blocks = 16;
        final MemorySegment buffers = ends[1].allocateReceiveBuffer(block * 4);
        // posted receives are advertised at once
        for (int i = 0; i < 4; i++)
        {
            ends[1].postReceive(buffers, (long)i * block, block);
        }
        final MemorySegment source = a.allocateBuffer(block);
        final CompletableFuture<Void> writer = run(() ->
        {
            // however late the advertisements arrive, the first four blocks go straight into the posted receives
            awaitAdverts(ends[0], 4);
            for (int i = 0; i < blocks; i++)
            {
                source.fill((byte)i);
                ends[0].write(source, 0, block);
            }
            ends[0].shutdownOutput();
        });
        long total = 0;
        int slot = 0;
        while (true)
        {
            final int n = ends[1].awaitReceive();
            if (n < 0)
            {
                break;
            }
            total += n;
            slot = (slot + 1) % 4;
            ends[1].postReceive(buffers, (long)slot * block, block);
        }
        writer.join();
        assertEquals((long)block * blocks, total);
        assertTrue(ends[0].counters().directTransfers() >= 4, ends[0].counters().toString());
    }

    /** Wait until the writing end holds {@code count} advertisements of its peer. */
    private static void awaitAdverts(final RaasStream writer, final int count)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (writer.queuedAdverts() < count)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError(count + " advertisements did not reach the writer within " + WAIT);
            }
            Thread.onSpinWait();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void aReaderSlowerThanItsWriterHoldsTheWriterBackAndLosesNothing(final String provider) throws Exception
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext().bufferBytes(8192));
        final int count = 2000;
        final CompletableFuture<Void> writer = run(() ->
        {
            try (DataOutputStream out = new DataOutputStream(ends[0].outputStream()))
            {
                for (int i = 0; i < count; i++)
                {
                    out.writeInt(i);
                    out.write(new byte[i % 50]);
                }
            }
            catch (final IOException ex)
            {
                throw new RuntimeException(ex);
            }
        });
        final DataInputStream in = new DataInputStream(ends[1].inputStream());
        for (int i = 0; i < count; i++)
        {
            if (i % 500 == 0)
            {
                Thread.sleep(50);
            }
            assertEquals(i, in.readInt());
            in.readFully(new byte[i % 50]);
        }
        assertEquals(-1, in.read());
        writer.join();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void halfCloseEndsOneDirectionWhileTheOtherGoesOn(final String provider) throws Exception
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext());
        final byte[] request = "GET everything".getBytes();
        ends[0].write(MemorySegment.ofArray(request), 0, request.length);
        ends[0].shutdownOutput();
        assertThrows(RaasException.class, () -> ends[0].write(MemorySegment.ofArray(request), 0, 1));

        final InputStream serverIn = ends[1].inputStream();
        assertArrayEquals(request, serverIn.readAllBytes(), "the server reads to the client's end");
        final byte[] reply = new byte[100_000];
        new Random(3).nextBytes(reply);
        final OutputStream serverOut = ends[1].outputStream();
        serverOut.write(reply);
        serverOut.close();
        assertArrayEquals(reply, ends[0].inputStream().readAllBytes(), "the client still reads the reply");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void channelsReadPartiallyAndWriteEverything(final String provider) throws Exception
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext());
        final StreamChannel client = ends[0].channel();
        final StreamChannel server = ends[1].channel();
        final ByteBuffer out = ByteBuffer.allocateDirect(10_000);
        for (int i = 0; i < 10_000; i++)
        {
            out.put((byte)(i * 7));
        }
        out.flip();
        assertEquals(10_000, client.write(out));
        client.shutdownOutput();
        final ByteBuffer small = ByteBuffer.allocate(999);
        int total = 0;
        int n;
        while ((n = server.read(small)) >= 0)
        {
            assertTrue(n <= 999 && n > 0 || !small.hasRemaining(), "read " + n);
            small.flip();
            while (small.hasRemaining())
            {
                assertEquals((byte)(total * 7), small.get(), "byte " + total);
                total++;
            }
            small.clear();
        }
        assertEquals(10_000, total);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void bothEndsWritingAtOnceKeepMoving(final String provider)
    {
        nodes(provider);
        // each end writes far more small pieces than the peer grants message credits before it reads anything
        final RaasStream[] ends = pair(new StreamContext().bufferBytes(16 * 1024));
        final int pieces = 3000;
        final CompletableFuture<Void> first = run(() -> pingPongWriter(ends[0], pieces));
        final CompletableFuture<Void> second = run(() -> pingPongWriter(ends[1], pieces));
        final CompletableFuture<Long> firstRead = supply(() -> drain(ends[0]));
        final CompletableFuture<Long> secondRead = supply(() -> drain(ends[1]));
        first.join();
        second.join();
        assertEquals(pieces * 100L, firstRead.join());
        assertEquals(pieces * 100L, secondRead.join());
    }

    private static void pingPongWriter(final RaasStream stream, final int pieces)
    {
        final MemorySegment piece = MemorySegment.ofArray(new byte[100]);
        for (int i = 0; i < pieces; i++)
        {
            stream.write(piece, 0, 100);
        }
        stream.shutdownOutput();
    }

    private static long drain(final RaasStream stream)
    {
        final MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        long total = 0;
        int n;
        while ((n = stream.read(into, 0, 4096)) >= 0)
        {
            total += n;
        }
        return total;
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(60)
    void aPeerThatClosesEndsTheStreamAndOneThatDiesBreaksIt(final String provider)
    {
        nodes(provider);
        final RaasStream[] ends = pair(new StreamContext().probeMs(200));
        ends[1].write(MemorySegment.ofArray(new byte[] {1, 2, 3}), 0, 3);
        ends[1].close();
        final MemorySegment into = MemorySegment.ofArray(new byte[16]);
        assertEquals(3, ends[0].read(into, 0, 16));
        assertEquals(-1, ends[0].read(into, 0, 16), "the end of the stream after the bytes the peer wrote");
        final RaasException refused =
            assertThrows(RaasException.class, () -> ends[0].write(into, 0, 16), "nobody reads any more");
        assertTrue(refused.getMessage().contains("closed"), refused.getMessage());

        final RaasStream[] next = pair2();
        // the peer's driver goes away without a word from its stream
        b.close();
        final RaasException broke = assertThrows(RaasException.class, () -> next[0].read(into, 0, 16));
        assertTrue(broke.getMessage().contains("node 2"), broke.getMessage());
    }

    private RaasStream[] pair2()
    {
        final StreamListener listener = StreamListener.listen(b, SERVICE + 1, new StreamContext());
        open.add(listener);
        final CompletableFuture<RaasStream> accepted = supply(() -> listener.accept(WAIT));
        final RaasStream client = RaasStream.connect(a, b.self().id(), SERVICE + 1, new StreamContext().probeMs(200));
        open.add(client);
        open.add(accepted.join());
        return new RaasStream[] {client, accepted.join()};
    }

    @Test
    void aStreamBufferTooSmallIsRefusedNamingTheValue()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new StreamContext().bufferBytes(100).conclude(4000));
        assertTrue(refused.getMessage().contains("=100"), refused.getMessage());
    }
}
