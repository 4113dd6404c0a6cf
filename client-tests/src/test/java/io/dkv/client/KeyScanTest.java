package io.dkv.client;

import io.dkv.client.keyspace.KeyPattern;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.client.txn.RawKeys;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.memory.MemoryNodeCounter;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scan of the keyspace by cursor (client/README.md, "Scans and flushes"): every key that has a value for the whole
 * scan comes back, once while nothing moves, whatever the copies, splits and membership changes meanwhile; a flush
 * leaves no key written before it.
 */
@Timeout(120)
class KeyScanTest
{
    private static final long[] NODES = {1, 2, 3};

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();
    private final List<MemoryNode> memoryNodes = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2, 3})
    void everyKeyComesBackOnceWhateverItsCopies(final int replicas)
    {
        final KvClient client = store(replicas, 64);
        final Set<String> written = putAll(client, "key:", 1_500);

        final List<String> scanned = scanAll(client, 10, null);

        assertEquals(written, new TreeSet<>(scanned));
        assertEquals(written.size(), scanned.size(), "no key comes twice while nothing moves");
        assertEquals(written.size(), client.countKeys());
    }

    @Test
    void keysPresentForTheWholeScanComeBackWhileSubtablesSplit()
    {
        final KvClient client = store(2, 8);
        final Set<String> old = putAll(client, "old:", 300);
        final long splitsBefore = splits();
        final Set<String> scanned = new HashSet<>();
        long cursor = ScanCursor.START;
        int added = 0;
        do
        {
            final ScanPage page = client.scan(cursor, 5, null);
            page.keys().forEach(key -> scanned.add(text(key)));
            cursor = page.cursor();
            // between the steps, keys enough to split subtables the scan has and has not reached
            for (int i = 0; i < 10 && added < 1_200; i++)
            {
                client.put(bytes("new:" + added++), bytes("v"));
            }
        }
        while (cursor != ScanCursor.START);

        assertTrue(splits() > splitsBefore, "the test must split subtables while it scans");
        final Set<String> missed = new TreeSet<>(old);
        missed.removeAll(scanned);
        assertEquals(Set.of(), missed);
    }

    @Test
    void leavesOutExpiredAndDeletedKeysAndKeysThePatternDoesNotMatch()
    {
        final KvClient client = store(1, 64);
        putAll(client, "user:", 40);
        putAll(client, "order:", 40);
        client.put(bytes("user:expired"), bytes("v"), client.epochClock().time() - 1);
        client.delete(bytes("user:7"));

        final List<String> users = scanAll(client, 7, KeyPattern.of(bytes("user:*")));
        final List<String> ones = scanAll(client, 100, KeyPattern.of(bytes("*:1?")));

        final Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 40; i++)
        {
            if (i != 7)
            {
                expected.add("user:" + i);
            }
        }
        assertEquals(expected, new TreeSet<>(users));
        final Set<String> expectedOnes = new TreeSet<>();
        for (int i = 10; i < 20; i++)
        {
            expectedOnes.add("user:" + i);
            expectedOnes.add("order:" + i);
        }
        assertEquals(expectedOnes, new TreeSet<>(ones));
        assertEquals(79, client.countKeys());
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aKeyHoldingAnIntentIsReturnedAsItsTransactionDecides(final int replicas)
    {
        final KvClient client = store(replicas, 64);
        final RawKeys raw = client.rawKeys();
        client.put(bytes("primary"), bytes("p0"));
        client.put(bytes("secondary"), bytes("s0"));
        final Versioned primary = raw.read(bytes("primary"));
        final Versioned secondary = raw.read(bytes("secondary"));
        // a transaction that deletes "secondary", committed by a coordinator that then died: nothing resolved
        assertTrue(raw.swap(bytes("secondary"), secondary, IntentLayout.encode(IntentLayout.SECONDARY, 7,
            bytes("primary"), null, 0, bytes("s0"), 0, null), KvBlockLayout.INTENT));
        assertTrue(raw.swap(bytes("primary"), primary, IntentLayout.encode(IntentLayout.PRIMARY_COMMITTED, 7, null,
            bytes("p1"), 0, bytes("p0"), 0, new byte[][]{bytes("secondary")}), KvBlockLayout.INTENT));

        assertEquals(List.of("primary"), scanAll(client, 10, null));
        assertEquals(1, client.countKeys());
    }

    @Test
    void anotherClientTakesTheNextStep()
    {
        final KvClient client = store(2, 64);
        final Set<String> written = putAll(client, "k", 400);
        final KvClient other = open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", 101),
            directory)), new KvClientContext().memoryNodes(NODES).replicas(2)));
        final List<String> scanned = new ArrayList<>();
        long cursor = ScanCursor.START;
        int step = 0;
        do
        {
            final ScanPage page = (step++ % 2 == 0 ? client : other).scan(cursor, 20, null);
            page.keys().forEach(key -> scanned.add(text(key)));
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);

        assertEquals(written, new TreeSet<>(scanned));
        assertEquals(written.size(), scanned.size());
    }

    @Test
    void aCursorOfAnotherMembershipStartsTheScanOver() throws InterruptedException
    {
        final KvClient client = store(2, 64);
        final Set<String> written = putAll(client, "k", 300);
        final ScanPage first = client.scan(ScanCursor.START, 100, null);
        final Set<String> seen = new HashSet<>();
        first.keys().forEach(key -> seen.add(text(key)));
        assertTrue(first.cursor() != ScanCursor.START);

        // the same members under a new epoch: the cursor's tag names the old one
        sameMembersUnderEpoch2(client);
        final List<String> rest = new ArrayList<>();
        long cursor = first.cursor();
        do
        {
            final ScanPage page = client.scan(cursor, 100, null);
            page.keys().forEach(key -> rest.add(text(key)));
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);

        assertEquals(written, new TreeSet<>(rest), "started over: every key again");
        assertTrue(ScanCursor.epochTagOf(first.cursor()) != ScanCursor.epochTag(2));
    }

    /** DBSIZE is a count over a scan's steps: one that starts over under a new membership counts from there. */
    @Test
    void aCountAcrossAMembershipChangeCountsEveryKeyOnce() throws InterruptedException
    {
        final KvClient client = store(2, 64);
        putAll(client, "k", 300);
        final ScanPage first = client.scan(ScanCursor.START, 100, null);
        assertFalse(first.restarted(), "a scan's first step starts nothing over");
        long counted = first.countAfter(0);
        assertEquals(first.keys().size(), counted);

        sameMembersUnderEpoch2(client);
        long cursor = first.cursor();
        boolean restarted = false;
        do
        {
            final ScanPage page = client.scan(cursor, 100, null);
            restarted |= page.restarted();
            counted = page.countAfter(counted);
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);

        assertTrue(restarted, "the step after the change started the scan over");
        assertEquals(300, counted);
        assertEquals(300, client.countKeys());
    }

    @Test
    void flushDeletesEveryKeyWrittenBeforeIt()
    {
        final KvClient client = store(2, 8);
        putAll(client, "k", 700);
        client.put(bytes("expired"), bytes("v"), client.epochClock().time() - 1);

        assertEquals(700, client.flush());

        assertEquals(List.of(), scanAll(client, 50, null));
        assertEquals(0, client.countKeys());
        assertEquals(null, client.get(bytes("k1")));
        client.put(bytes("k1"), bytes("after"));
        assertEquals("after", text(client.get(bytes("k1"))));
    }

    @Test
    void aFlushGivesTheHeapBack() throws InterruptedException
    {
        // a small heap, filled until the node has no chunk left; its clock held, so that the grace period is ours
        final CachedNanoClock nodeClock = new CachedNanoClock();
        final Raas memoryRaas = open.add(RaasDriver.start(Opened.driver("shm", 1).role(NodeRecord.ROLE_MEMORY),
            directory));
        final MemoryNode node = open.add(MemoryNode.start(memoryRaas, new MemoryNodeContext().indexGroups(64)
            .chunkBytes(4096).heapChunks(16).graceMs(60_000).nanoClock(nodeClock)));
        final KvClient client = open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", 100),
            directory)), new KvClientContext().memoryNodes(1)));
        final byte[] value = new byte[100];
        int written = 0;
        while (true)
        {
            assertTrue(written < 10_000, "a heap of 16 chunks of 4 KiB took " + written + " keys");
            try
            {
                client.put(bytes("key:" + written), value);
                written++;
            }
            catch (final KvException ex)
            {
                assertTrue(ex.getMessage().contains("is full"), ex.getMessage());
                break;
            }
        }
        assertTrue(written > 100, written + " keys");

        assertEquals(written, client.flush());

        // as many keys again: only the memory the flush gave back can hold them
        for (int k = 0; k < written; k++)
        {
            final byte[] key = bytes("again:" + k);
            for (int attempt = 0; ; attempt++)
            {
                try
                {
                    client.put(key, value);
                    break;
                }
                catch (final KvException ex)
                {
                    assertTrue(ex.getMessage().contains("is full") && attempt < 1_000, ex.getMessage());
                    // the node takes a chunk back a grace period after no slot points into it, by its clock
                    final long before = node.chunksReclaimed();
                    nodeClock.advance(TimeUnit.SECONDS.toNanos(61));
                    final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
                    while (node.chunksReclaimed() == before && System.nanoTime() < deadline)
                    {
                        Thread.sleep(1);
                    }
                }
            }
        }
        assertTrue(node.chunksReclaimed() > 0);
        assertEquals(written, client.countKeys());
    }

    @Test
    void refusesACursorNoScanMade()
    {
        final KvClient client = store(1, 64);

        final IllegalArgumentException negative =
            assertThrows(IllegalArgumentException.class, () -> client.scan(-5, 10, null));
        final IllegalArgumentException unmarked =
            assertThrows(IllegalArgumentException.class, () -> client.scan(12345, 10, null));
        final IllegalArgumentException count =
            assertThrows(IllegalArgumentException.class, () -> client.scan(ScanCursor.START, 0, null));

        assertTrue(negative.getMessage().contains("invalid cursor -5"), negative.getMessage());
        assertTrue(unmarked.getMessage().contains("invalid cursor 12345"), unmarked.getMessage());
        assertTrue(count.getMessage().contains("count 0"), count.getMessage());
    }

    /** The same members under membership epoch 2, once the client has read it. */
    private void sameMembersUnderEpoch2(final KvClient client) throws InterruptedException
    {
        final int[] live = new int[NODES.length];
        Arrays.fill(live, Membership.LIVE);
        directory.membership(new Membership(2, 2, NODES, live));
        Thread.sleep(client.membershipPhaseGapMs() + 200);
    }

    private KvClient store(final int replicas, final int indexGroups)
    {
        final int[] live = new int[NODES.length];
        Arrays.fill(live, Membership.LIVE);
        directory.membership(new Membership(1, replicas, NODES, live));
        for (final long id : NODES)
        {
            final Raas raas = open.add(RaasDriver.start(Opened.driver("shm", id).role(NodeRecord.ROLE_MEMORY),
                directory));
            memoryNodes.add(open.add(MemoryNode.start(raas,
                new MemoryNodeContext().indexGroups(indexGroups).chunkBytes(256 << 10).heapChunks(16))));
        }
        final Raas clientRaas = open.add(RaasDriver.start(Opened.driver("shm", 100), directory));
        return open.add(KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(NODES).replicas(replicas).membershipRefreshMs(50)));
    }

    private long splits()
    {
        long splits = 0;
        for (final MemoryNode node : memoryNodes)
        {
            splits += node.counters().get(MemoryNodeCounter.REQUESTS_SPLIT).get();
        }
        return splits;
    }

    private static Set<String> putAll(final KvClient client, final String prefix, final int count)
    {
        final Set<String> keys = new TreeSet<>();
        for (int i = 0; i < count; i++)
        {
            client.put(bytes(prefix + i), bytes("value " + i));
            keys.add(prefix + i);
        }
        return keys;
    }

    private static List<String> scanAll(final KvClient client, final int count, final KeyPattern pattern)
    {
        final List<String> keys = new ArrayList<>();
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scan(cursor, count, pattern);
            page.keys().forEach(key -> keys.add(text(key)));
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        return keys;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
