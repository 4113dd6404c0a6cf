package io.dkv.client;

import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.raas.Membership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.dkv.client.ChangingStore.ADDED;
import static io.dkv.client.ChangingStore.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A scan while memory node 4 joins and keys move onto it (client/README.md, "Scans and flushes"): a scan begun before
 * the change and stepped through each of its phases returns every key, as does a whole scan inside each phase (keys
 * are read from their first serving replica before or after the change), and once the change is over every key comes
 * back exactly once, node 4's included.
 */
@Timeout(120)
class ScanAcrossMembershipChangeTest
{
    private static final int KEYS = 300;

    /** Small heaps (4 MiB): 300 keys, and the run's memory adds up. */
    private final ChangingStore store = new ChangingStore().heaps(256 << 10, 16);

    @AfterEach
    void close() throws Exception
    {
        store.close();
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    void everyKeyComesBackThroughEveryPhaseOfANodeJoining(final int replicas) throws InterruptedException
    {
        store.start(replicas);
        final KvClient client = store.connect(100);
        final Set<String> written = putAll(client);
        final Set<String> longScan = new TreeSet<>();
        long cursor = step(client, ScanCursor.START, longScan);

        store.startNode(ADDED);
        store.phase(2, replicas, Membership.FILL, client);
        assertTrue(client.fillMembershipChange().complete());
        cursor = step(client, cursor, longScan);
        assertEquals(written, wholeScan(client), "a whole scan while the change fills");
        store.phase(3, replicas, Membership.SWITCH, client);
        cursor = step(client, cursor, longScan);
        assertEquals(written, wholeScan(client), "a whole scan while the change switches");
        store.phase(4, replicas, Membership.HANDOVER, client);
        assertTrue(client.fillMembershipChange().complete());
        cursor = step(client, cursor, longScan);
        assertEquals(written, wholeScan(client), "a whole scan while the change hands over");
        store.phase(5, replicas, Membership.CLEANUP, client);
        cursor = step(client, cursor, longScan);
        store.directory.membership(ChangingStore.steady(6, replicas, ChangingStore.ALL));
        Thread.sleep(client.membershipPhaseGapMs());
        while (cursor != ScanCursor.START)
        {
            cursor = step(client, cursor, longScan);
        }

        assertEquals(written, longScan, "the scan begun before the change");
        final List<String> after = new ArrayList<>();
        long next = ScanCursor.START;
        do
        {
            final ScanPage page = client.scan(next, 25, null);
            page.keys().forEach(key -> after.add(text(key)));
            next = page.cursor();
        }
        while (next != ScanCursor.START);
        assertEquals(written, new TreeSet<>(after));
        assertEquals(KEYS, after.size(), "once each, after the change");
        assertTrue(ChangingStore.movingKeys(client, KEYS).length > 0, "some keys moved onto node 4");
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    void aScanThatPassedTheNodeKeysMoveOntoStartsOverWhenNode2Drains(final int replicas) throws InterruptedException
    {
        store.start(replicas);
        store.startNode(ADDED);
        store.directory.membership(ChangingStore.steady(1, replicas, ChangingStore.ALL));
        final KvClient client = store.connect(100);
        final Set<String> written = putAll(client);
        final Set<String> scanned = new TreeSet<>();
        long cursor = ScanCursor.START;
        do
        {
            // past node 1 (rank 0): keys node 2 hands to node 1 from now on would be behind the scan
            cursor = step(client, cursor, scanned);
        }
        while (ScanCursor.node(cursor) == 0 && cursor != ScanCursor.START);
        assertTrue(cursor != ScanCursor.START && ScanCursor.node(cursor) >= 1, "the scan is past node 1");

        final int[] draining = {Membership.PLACED, Membership.PLACED_BEFORE, Membership.PLACED, Membership.PLACED};
        for (final int phase : new int[]{Membership.FILL, Membership.SWITCH, Membership.HANDOVER, Membership.CLEANUP})
        {
            store.directory.membership(ChangingStore.changing(phase + 1, replicas, draining, phase));
            Thread.sleep(client.membershipPhaseGapMs());
            if (phase == Membership.FILL || phase == Membership.HANDOVER)
            {
                assertTrue(client.fillMembershipChange().complete());
            }
        }
        store.directory.membership(ChangingStore.steady(10, replicas, new long[]{1, 3, ADDED}));
        Thread.sleep(client.membershipPhaseGapMs());
        while (cursor != ScanCursor.START)
        {
            cursor = step(client, cursor, scanned);
        }

        final Set<String> missed = new TreeSet<>(written);
        missed.removeAll(scanned);
        assertEquals(Set.of(), missed, "every key, node 2's moved to nodes the scan had passed included");
        assertEquals(written, wholeScan(client));
    }

    /** @return the keys written: key-0 to key-299. */
    private static Set<String> putAll(final KvClient client)
    {
        final Set<String> written = new TreeSet<>();
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), ("v" + k).getBytes(StandardCharsets.UTF_8));
            written.add(text(key(k)));
        }
        return written;
    }

    private static long step(final KvClient client, final long cursor, final Set<String> into)
    {
        final ScanPage page = client.scan(cursor, 20, null);
        page.keys().forEach(key -> into.add(text(key)));
        return page.cursor();
    }

    private static Set<String> wholeScan(final KvClient client)
    {
        final Set<String> keys = new TreeSet<>();
        long cursor = ScanCursor.START;
        do
        {
            cursor = step(client, cursor, keys);
        }
        while (cursor != ScanCursor.START);
        return keys;
    }

    private static String text(final byte[] key)
    {
        return new String(key, StandardCharsets.UTF_8);
    }
}
