package io.dkv.client;

import io.dkv.client.collection.Collection;
import io.dkv.client.pieces.PieceWriter;
import io.dkv.client.pieces.PiecedString;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.pieces.PiecesGoneException;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.JournalLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Strings longer than a value takes (client/README.md, "Strings in pieces"): pieces written first under a fresh
 * generation, published by one transaction that removes what the key held, read piece by piece; a change writes the
 * pieces it touches anew and keeps the others.
 */
@Timeout(180)
class PiecedStringTest
{
    private static final long[] NODES = {1, 2};
    private static final int PIECE = 64 * 1024;
    private static final byte[] KEY = "big".getBytes(StandardCharsets.UTF_8);

    private final StaticDirectory directory = new StaticDirectory();
    private final List<MemoryNode> memoryNodes = new ArrayList<>();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aLongStringReadsBackAsWrittenAndIsNoPlainValue(final int replicas)
    {
        final KvClient client = store(replicas);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        final byte[] value = random(3 * 1024 * 1024 + 123, 1);
        assertEquals(value.length, strings.write(KEY, new ByteArrayInputStream(value), KvClient.NO_EXPIRY));

        assertArrayEquals(value, readAll(strings, KEY));
        assertEquals(value.length, strings.length(KEY));
        final PiecedString header = header(client, KEY);
        assertEquals(PiecedString.piecesOf(value.length, PIECE), header.pieces());
        final int chunksBefore = chunksAllocated();
        assertThrows(WrongKindException.class, () -> client.get(KEY));
        assertThrows(WrongKindException.class, () -> client.put(KEY, new byte[1]));
        assertThrows(WrongKindException.class, () -> client.delete(KEY));
        // refused at once: not taken for a replica's failure and tried again, a block placed each time, until the
        // write's deadline (which filled the heap of a small node)
        assertTrue(chunksAllocated() - chunksBefore <= 2, (chunksAllocated() - chunksBefore) + " chunks");
        final byte[] range = new byte[200_000];
        final int[] at = {0};
        strings.read(KEY, header, 1_000_000, 1_200_000, (bytes, offset, length) ->
        {
            System.arraycopy(bytes, offset, range, at[0], length);
            at[0] += length;
        });
        assertArrayEquals(Arrays.copyOfRange(value, 1_000_000, 1_200_000), range);
    }

    @Test
    void aShortStreamIsAPlainValue()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        final byte[] value = random(100_000, 2);
        strings.write(KEY, new ByteArrayInputStream(value), KvClient.NO_EXPIRY);
        assertArrayEquals(value, client.get(KEY));
        assertArrayEquals(value, readAll(strings, KEY));
    }

    @Test
    void replacingAStringRemovesItsPiecesWhateverReplacesIt()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        strings.write(KEY, new ByteArrayInputStream(random(2 * 1024 * 1024, 3)), KvClient.NO_EXPIRY);
        final PiecedString first = header(client, KEY);
        assertTrue(allPiecesThere(client, first));

        strings.write(KEY, new ByteArrayInputStream(random(1_500_000, 4)), KvClient.NO_EXPIRY);
        assertTrue(nonePiecesThere(client, first));
        final PiecedString second = header(client, KEY);

        strings.write(KEY, new ByteArrayInputStream(new byte[] {7}), KvClient.NO_EXPIRY);
        assertTrue(nonePiecesThere(client, second));
        assertArrayEquals(new byte[] {7}, client.get(KEY));

        // over a hash: its segments go too, and a long string over it
        client.transact(tx ->
        {
            PiecedStrings.dropAny(tx, KEY, tx.read(KEY), 64);
            final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
            hash.put("f".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
            hash.write();
            return null;
        });
        strings.write(KEY, new ByteArrayInputStream(random(1_200_000, 5)), KvClient.NO_EXPIRY);
        assertEquals(1_200_000, strings.length(KEY));
        final PiecedString third = header(client, KEY);
        client.transact(tx ->
        {
            PiecedStrings.dropAny(tx, KEY, tx.read(KEY), 64);
            return null;
        });
        assertTrue(nonePiecesThere(client, third));
        assertEquals(-1, strings.length(KEY));
    }

    @Test
    void aChangeWritesTheTouchedPiecesAndKeepsTheOthers()
    {
        final KvClient client = store(2);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        final byte[] model = random(1_100_000, 6);
        strings.write(KEY, new ByteArrayInputStream(model), KvClient.NO_EXPIRY);
        final PiecedString before = header(client, KEY);

        final byte[] patch = random(100, 7);
        final long offset = PIECE * 3L - 50;
        final PiecedString after = strings.setRange(KEY, before, KvClient.NO_EXPIRY, offset, patch);
        client.transact(tx ->
        {
            PiecedStrings.removeReplaced(tx, before, after);
            PiecedStrings.publish(tx, KEY, after, KvClient.NO_EXPIRY);
            return null;
        });
        System.arraycopy(patch, 0, model, (int)offset, patch.length);
        assertArrayEquals(model, readAll(strings, KEY));
        for (int i = 0; i < before.pieces(); i++)
        {
            if (i == 2 || i == 3)
            {
                assertNotEquals(before.generation(i), after.generation(i), "piece " + i + " is written anew");
            }
            else
            {
                assertEquals(before.generation(i), after.generation(i), "piece " + i + " is kept");
            }
        }
        assertNull(peek(client, before.pieceKey(2)), "a replaced piece is removed with the swap");

        // far past the end: zeros between, no piece written for them
        final long far = 40L * 1024 * 1024;
        final PiecedString sparse = strings.setRange(KEY, after, KvClient.NO_EXPIRY, far, new byte[] {1, 2});
        assertEquals(far + 2, sparse.length());
        int written = 0;
        for (int i = 0; i < sparse.pieces(); i++)
        {
            written += sparse.generation(i) != 0 ? 1 : 0;
        }
        assertEquals(before.pieces() + 1, written, "the old pieces and the one the patch is in");
        final byte[] tail = new byte[10];
        final int[] at = {0};
        strings.read(KEY, sparse, far - 8, far + 2, (bytes, off, length) ->
        {
            System.arraycopy(bytes, off, tail, at[0], length);
            at[0] += length;
        });
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1, 2}, tail);
        strings.abandon(sparse, after);
        assertNotNull(peek(client, after.pieceKey(0)), "abandoning a change leaves the pieces it kept");
        assertNull(peek(client, sparse.pieceKey(sparse.pieces() - 1)));
    }

    @Test
    void aReaderOfAReplacedStringIsToldRatherThanGivenOtherBytes()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        strings.write(KEY, new ByteArrayInputStream(random(1_300_000, 8)), KvClient.NO_EXPIRY);
        final PiecedString old = header(client, KEY);
        strings.write(KEY, new ByteArrayInputStream(random(1_300_000, 9)), KvClient.NO_EXPIRY);
        assertNotEquals(old, header(client, KEY));
        assertThrows(PiecesGoneException.class, () -> strings.readPiece(KEY, old, 0));
    }

    @Test
    void readersSeeOneWholeStringOrAreToldNeverBytesOfTwo() throws Exception
    {
        final KvClient client = store(2);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        // longer than a value takes: in pieces (17 of them)
        final int length = 1_100_000;
        strings.write(KEY, new ByteArrayInputStream(filled(length, 0)), KvClient.NO_EXPIRY);
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicInteger whole = new AtomicInteger();
        final AtomicInteger told = new AtomicInteger();
        final List<String> mixed = new CopyOnWriteArrayList<>();
        final List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++)
        {
            readers.add(Thread.ofPlatform().start(() ->
            {
                while (writing.get() || whole.get() < 10)
                {
                    try
                    {
                        final byte[] read = readAll(strings, KEY);
                        final boolean one = read.length == length &&
                            Arrays.equals(read, filled(length, read[0]));
                        whole.incrementAndGet();
                        if (!one)
                        {
                            mixed.add(read.length + " bytes, from " + read[0] + " to " + read[read.length - 1]);
                        }
                    }
                    catch (final PiecesGoneException ex)
                    {
                        told.incrementAndGet();
                    }
                }
            }));
        }
        for (int v = 1; v <= 15; v++)
        {
            strings.write(KEY, new ByteArrayInputStream(filled(length, v)), KvClient.NO_EXPIRY);
        }
        writing.set(false);
        for (final Thread reader : readers)
        {
            reader.join();
        }
        assertEquals(List.of(), mixed, "reads of several strings' bytes (" + whole.get() + " whole, " + told.get() +
            " told the string changed)");
        assertArrayEquals(filled(length, 15), readAll(strings, KEY));
    }

    private static byte[] filled(final int length, final int value)
    {
        final byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte)value);
        return bytes;
    }

    @Test
    void abandonedPiecesAreRemovedAndCopiesCarryTheirExpiry()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        final PieceWriter writer = strings.writer(KvClient.NO_EXPIRY);
        final byte[] value = random(5 * PIECE, 10);
        writer.write(value, 0, value.length);
        writer.writeZeros(PIECE);
        final PiecedString staged = writer.finish();
        assertEquals(0, staged.generation(5), "a piece of zeros is not written");
        assertTrue(allPiecesThere(client, staged));

        final long expireAt = client.epochClock().time() + 3_600_000;
        final PiecedString copy = strings.copy(KEY, staged, expireAt);
        for (int i = 0; i < 5; i++)
        {
            final LogicalValue piece = peek(client, copy.pieceKey(i));
            assertEquals(expireAt, piece.expireAtMillis());
            assertEquals(ValueKind.SEGMENT, piece.kind());
        }
        strings.abandon(staged, null);
        strings.abandon(copy, null);
        assertTrue(nonePiecesThere(client, staged));
        assertTrue(nonePiecesThere(client, copy));
    }

    @Test
    void piecesNobodyPublishedAreSweptOnceOlderThanTheBoundAndOnlyThey()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        // a writer that stopped between its pieces and their publishing (its process killed), one still at work
        final byte[] value = random(3 * PIECE + 10, 12);
        final PieceWriter stopped = strings.writer(KvClient.NO_EXPIRY);
        stopped.write(value, 0, value.length);
        final PiecedString orphan = stopped.finish();
        final PieceWriter working = strings.writer(KvClient.NO_EXPIRY);
        working.write(value, 0, value.length);
        final PiecedString inFlight = working.finish();
        // and strings published: written whole, and changed (pieces of two writers)
        strings.write(KEY, new ByteArrayInputStream(random(1_200_000, 13)), KvClient.NO_EXPIRY);
        final PiecedString before = header(client, KEY);
        final PiecedString changed = strings.setRange(KEY, before, KvClient.NO_EXPIRY, 5, new byte[] {1});
        client.transact(tx ->
        {
            PiecedStrings.removeReplaced(tx, before, changed);
            PiecedStrings.publish(tx, KEY, changed, KvClient.NO_EXPIRY);
            return null;
        });
        assertEquals(2, journals(client), "the two writers that published removed their journals");

        assertEquals(0, strings.sweep(3_600_000), "none is an hour old");
        assertTrue(allPiecesThere(client, orphan) && allPiecesThere(client, inFlight));
        assertEquals(2, strings.sweep(0));
        assertTrue(nonePiecesThere(client, orphan) && nonePiecesThere(client, inFlight));
        assertTrue(allPiecesThere(client, changed), "a published string keeps every piece");
        assertEquals(0, journals(client));
        final KvException late = assertThrows(KvException.class,
            () -> strings.publishReplacing("late".getBytes(StandardCharsets.UTF_8), inFlight, KvClient.NO_EXPIRY));
        assertTrue(late.getMessage().contains("swept"), late.getMessage());
        assertEquals(-1, strings.length("late".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aSweepFinishesADropStoppedBetweenItsCommitAndItsRemovals()
    {
        final KvClient client = store(1);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        strings.write(KEY, new ByteArrayInputStream(random(1_200_000, 21)), KvClient.NO_EXPIRY);
        final PiecedString string = header(client, KEY);
        // what a DEL's transaction commits (Transaction.dropAfterCommit), its process then stopped before removing
        client.transact(tx ->
        {
            tx.remove(KEY);
            tx.writeFreeing(ReservedKeys.journalKey(string.generation(0)), JournalLayout.encode(
                client.epochClock().time(), string.pieces(), JournalLayout.CLAIMED),
                ValueKind.word(ValueKind.SEGMENT, KvClient.NO_EXPIRY));
            return null;
        });
        assertEquals(-1, strings.length(KEY));
        assertTrue(allPiecesThere(client, string));

        assertEquals(0, strings.sweep(3_600_000), "its journal is not an hour old");
        assertEquals(1, strings.sweep(0));
        assertTrue(nonePiecesThere(client, string));
        assertEquals(0, journals(client));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aDroppedStringsPiecesAndJournalsAreGoneWhenItsTransactionReturns(final int replicas)
    {
        final KvClient client = store(replicas);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        strings.write(KEY, new ByteArrayInputStream(random(1_300_000, 22)), KvClient.NO_EXPIRY);
        final PiecedString string = header(client, KEY);
        // two generations: a change writes the piece it touches anew
        final PiecedString changed = strings.setRange(KEY, string, KvClient.NO_EXPIRY, PIECE + 1, new byte[] {1});
        client.transact(tx ->
        {
            PiecedStrings.removeReplaced(tx, string, changed);
            PiecedStrings.publish(tx, KEY, changed, KvClient.NO_EXPIRY);
            return null;
        });
        assertTrue(allPiecesThere(client, changed));

        client.transact(tx ->
        {
            PiecedStrings.dropAny(tx, KEY, tx.read(KEY), 64);
            return null;
        });
        assertEquals(-1, strings.length(KEY));
        assertTrue(nonePiecesThere(client, changed));
        assertEquals(0, journals(client), "each generation's journal went with its pieces");
    }

    private static int journals(final KvClient client)
    {
        int journals = 0;
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scanAll(cursor, 100);
            journals += (int)page.keys().stream().filter(ReservedKeys::isJournal).count();
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        return journals;
    }

    @Test
    void theMemoryOfReplacedPiecesIsReclaimed()
    {
        // 32 MiB of heap, 100 MB written over one key: only reclamation of the replaced pieces lets it go on (a
        // write that finds the node full waits for the grace period of what was freed, and tries again)
        final KvClient client = store(1, 16, 2_000);
        final PiecedStrings strings = new PiecedStrings(client, PIECE);
        final byte[] value = random(3 * 1024 * 1024 + 5, 11);
        for (int i = 0; i < 33; i++)
        {
            value[i] = (byte)i;
            final int finalI = i;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (true)
            {
                try
                {
                    strings.write(KEY, new ByteArrayInputStream(value), KvClient.NO_EXPIRY);
                    break;
                }
                catch (final KvException ex)
                {
                    // full until the grace of what was freed ends; or, on a loaded machine, a chunk request that took
                    // longer than this client's timeout (half the grace): tried again all the same
                    assertTrue((ex.getMessage().contains("is full") || ex.getMessage().contains("did not answer")) &&
                        System.nanoTime() < deadline, () -> "write " + finalI + ": " + ex.getMessage() + "; heaps " +
                        client.memoryNodeHeaps());
                    // after a pause, as a client told OOM would: a refused write leaves the pieces it placed on the
                    // other node until the sweep and a grace give them back (some 4 s), so retries without one keep
                    // both heaps full of their own refused attempts, on a loaded machine for good
                    LockSupport.parkNanos(500_000_000L);
                }
            }
        }
        assertArrayEquals(value, readAll(strings, KEY));
    }

    private int chunksAllocated()
    {
        return memoryNodes.stream().mapToInt(MemoryNode::chunksAllocated).sum();
    }

    private static byte[] readAll(final PiecedStrings strings, final byte[] key)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        strings.read(key, out);
        return out.toByteArray();
    }

    private static PiecedString header(final KvClient client, final byte[] key)
    {
        return client.transact(tx -> PiecedStrings.header(key, tx.read(key)));
    }

    private static LogicalValue peek(final KvClient client, final byte[] key)
    {
        final Transaction tx = client.begin();
        try
        {
            return tx.peek(key);
        }
        finally
        {
            tx.abort();
        }
    }

    private static boolean allPiecesThere(final KvClient client, final PiecedString string)
    {
        for (int i = 0; i < string.pieces(); i++)
        {
            if (string.generation(i) != 0 && peek(client, string.pieceKey(i)) == null)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean nonePiecesThere(final KvClient client, final PiecedString string)
    {
        for (int i = 0; i < string.pieces(); i++)
        {
            if (string.generation(i) != 0 && peek(client, string.pieceKey(i)) != null)
            {
                return false;
            }
        }
        return true;
    }

    private static byte[] random(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private KvClient store(final int replicas)
    {
        return store(replicas, 32, io.dkv.memory.MemoryNodeConfiguration.GRACE_MS_DEFAULT);
    }

    private KvClient store(final int replicas, final int heapChunks, final int graceMs)
    {
        return open.store(directory, NODES, replicas, new KvClientContext().timeoutMs(Math.min(5_000, graceMs / 2)),
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(2 << 20).heapChunks(heapChunks).graceMs(graceMs),
            memoryNodes);
    }
}
