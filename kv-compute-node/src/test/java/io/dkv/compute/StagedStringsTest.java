package io.dkv.compute;

import io.dkv.client.KvClient;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.pieces.PiecesGoneException;
import io.dkv.compute.command.StagedStrings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A long bulk handed to {@link StagedStrings} as it arrives is written into pieces by the executor it is given, never
 * by the thread handing the bytes on (the connection's event loop): that thread only copies, each bulk's chunks are
 * written in order, at most 16 are out before it is told to stop reading, and it hears when they drained. The pieces
 * hold the bulk's bytes once written; a bulk abandoned part way leaves none.
 */
final class StagedStringsTest
{
    private static TestStore store;

    @BeforeAll
    static void startStore()
    {
        store = new TestStore(new ComputeNodeContext());
    }

    @AfterAll
    static void stopStore()
    {
        store.close();
    }

    /** Runs nothing until the test says so: what the store threads would run, held. */
    private static final class HeldExecutor implements Executor
    {
        private final ArrayDeque<Runnable> held = new ArrayDeque<>();

        public synchronized void execute(final Runnable task)
        {
            held.add(task);
        }

        synchronized int size()
        {
            return held.size();
        }

        /** Run the held tasks, and those they hand on, until none is left. */
        void runAll()
        {
            Runnable next;
            while ((next = poll()) != null)
            {
                next.run();
            }
        }

        private synchronized Runnable poll()
        {
            return held.poll();
        }
    }

    @Test
    void aLongBulksPiecesAreWrittenByTheExecutorInOrderWithTheReadingHeldPastTheBound() throws Exception
    {
        final KvClient client = store.client();
        final HeldExecutor writes = new HeldExecutor();
        final StagedStrings staged = new StagedStrings(client, writes);
        final AtomicInteger drained = new AtomicInteger();
        staged.onDrained(drained::incrementAndGet);
        final byte[] bulk = new byte[3 * 1024 * 1024 + 12_345];
        new Random(7).nextBytes(bulk);

        staged.begin(bulk.length);
        int handed = 0;
        boolean backlogged = false;
        while (handed < bulk.length)
        {
            // as a socket hands them on: reads of odd sizes, not chunks
            final int n = Math.min(10_007, bulk.length - handed);
            final ByteBuf in = Unpooled.wrappedBuffer(bulk, handed, n);
            staged.write(in, n);
            assertEquals(0, in.readableBytes(), "every byte taken");
            handed += n;
            if (!backlogged && staged.backlogged())
            {
                backlogged = true;
                assertTrue(handed >= 16 * 65_536 && handed < 16 * 65_536 + 10_007, "at 16 chunks out: " + handed);
                assertEquals(1, writes.size(), "the first chunk's write held, the others behind it");
            }
        }
        @SuppressWarnings("unchecked")
        final CompletableFuture<PiecedString> written = (CompletableFuture<PiecedString>)staged.finish();
        assertTrue(backlogged, "a 3 MiB bulk with nothing written passes the bound");
        assertFalse(written.isDone(), "nothing written on the thread that handed the bytes on");
        assertEquals(0, drained.get());

        writes.runAll();
        assertTrue(written.isDone());
        assertFalse(staged.backlogged(), "drained");
        assertEquals(1, drained.get(), "told once that it may read again");
        final PiecedString string = written.join();
        assertEquals(bulk.length, string.length());

        final PiecedStrings pieced = new PiecedStrings(client);
        final byte[] key = "staged-test".getBytes(StandardCharsets.UTF_8);
        pieced.publishReplacing(key, string, KvClient.NO_EXPIRY);
        final ByteArrayOutputStream read = new ByteArrayOutputStream();
        pieced.read(key, read);
        assertArrayEquals(bulk, read.toByteArray(), "the pieces hold the bulk's bytes, in order");
        try (RawResp resp = new RawResp(store.port()))
        {
            assertEquals(":1", resp.call("DEL", "staged-test"));
        }
    }

    @Test
    void aBulkAbandonedPartWayLeavesNoPiecesAndOneFinishedButUnusedIsRemoved() throws Exception
    {
        final KvClient client = store.client();
        final HeldExecutor writes = new HeldExecutor();
        final StagedStrings staged = new StagedStrings(client, writes);
        final byte[] bulk = new byte[1_500_000];
        new Random(8).nextBytes(bulk);

        staged.begin(bulk.length);
        staged.write(Unpooled.wrappedBuffer(bulk, 0, 700_000), 700_000);
        staged.abandon();
        writes.runAll();
        assertFalse(staged.backlogged());

        staged.begin(bulk.length);
        staged.write(Unpooled.wrappedBuffer(bulk), bulk.length);
        final Object finished = staged.finish();
        writes.runAll();
        @SuppressWarnings("unchecked")
        final PiecedString string = ((CompletableFuture<PiecedString>)finished).join();
        final PiecedStrings pieced = new PiecedStrings(client);
        final byte[] unused = "unused".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(java.util.Arrays.copyOf(bulk, string.pieceLength(0)), pieced.readPiece(unused, string, 0));
        staged.abandon(finished);
        writes.runAll();
        for (int i = 0; i < string.pieces(); i++)
        {
            final int piece = i;
            assertThrows(PiecesGoneException.class, () -> pieced.readPiece(unused, string, piece), "removed");
        }
    }
}
