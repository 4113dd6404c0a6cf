package io.dkv.client;

import io.dkv.client.index.KeyState;
import io.dkv.client.replication.RefillBatch;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.Membership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;

import static io.dkv.client.ChangingStore.ADDED;
import static io.dkv.client.ChangingStore.bytes;
import static io.dkv.client.ChangingStore.indexOf;
import static io.dkv.client.ChangingStore.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A membership change's fill copies its moving keys in batches (client/README.md, "Refill in batches"): each step of
 * the refill is one round for 16 keys. On a quiet store every moving key is copied in a batch, but one whose block is
 * too long for its slot to say, which the single-key refill copies; and each copy on the added member holds what the
 * key's head holds. A write that lands on the added member between the batch's read of it and its read of the
 * key's other replicas is never replaced.
 */
class RefillInBatchesTest
{
    private static final int KEYS = 600;
    private static final int LONG_KEY = 7;

    private final ChangingStore store = new ChangingStore();
    /** Each key's replicas before the change. */
    private final long[][] before = new long[KEYS][];

    @AfterEach
    void close() throws Exception
    {
        store.close();
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    @Timeout(120)
    void aQuietFillCopiesEveryMovingKeyInBatchesEachAsItsHeadHoldsIt(final int replicas) throws InterruptedException
    {
        final KvClient client = loaded(replicas);
        final int[] moving = ChangingStore.movingKeys(client, KEYS);
        final boolean longMoves = Arrays.stream(moving).anyMatch(k -> k == LONG_KEY);

        final RefillReport fill = client.fillMembershipChange();
        assertTrue(fill.complete(), "a quiet fill settles every key: " + fill);
        assertEquals(moving.length, fill.refilled(), "every moving key copied onto the added member: " + fill);
        assertTrue(fill.alone() >= (longMoves ? 1 : 0) && fill.alone() * 20 <= moving.length, "keys refilled one by " +
            "one: the one whose block is too long for its slot to say, and the few with several slots of their " +
            "fingerprint: " + fill);
        final KvSession check = store.session(103);
        for (final int k : moving)
        {
            assertCopyAsHead(check, k);
        }

        final RefillReport again = client.fillMembershipChange();
        assertEquals(moving.length, again.inPlace(), "a second pass finds every copy in place: " + again);
        assertEquals(0, again.refilled(), again.toString());
        assertEquals(fill.alone(), again.alone(), "the same keys alone: " + again);
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    @Timeout(120)
    void aWriteLandingBetweenTheBatchsReadsOfAKeyIsNeverReplaced(final int replicas) throws InterruptedException
    {
        final KvClient client = loaded(replicas);
        final int[] moving = ChangingStore.movingKeys(client, KEYS);
        final int[] batched = Arrays.stream(moving).filter(k -> k != LONG_KEY).limit(16).toArray();
        final KvSession session = store.session(101);
        final RefillBatch batch = session.refillBatch();
        for (final int k : batched)
        {
            assertTrue(batch.add(key(k), indexOf(ADDED)));
        }
        final int racing = batched[0];
        final int deleted = batched[1];
        batch.betweenReads = () ->
        {
            // once: the batch reads every key's state again after its copies, to check them
            batch.betweenReads = null;
            client.put(key(racing), bytes("racing"));
            client.delete(key(deleted));
        };
        batch.run();

        assertEquals(RefillBatch.IN_PLACE, batch.outcome(0),
            "the racing write put its own copy on the added member, which the batch leaves as it is");
        assertEquals(RefillBatch.IN_PLACE, batch.outcome(1), "the deleted key has no copy to make");
        for (int i = 2; i < batched.length; i++)
        {
            assertEquals(RefillBatch.REFILLED, batch.outcome(i), "key " + batched[i] + " copied");
        }
        final KvSession check = store.session(103);
        for (final int k : batched)
        {
            assertCopyAsHead(check, k);
        }
        assertArrayEquals(bytes("racing"), valueAt(check, indexOf(ADDED), racing));
        assertEquals(KvBlockLayout.NO_WRITE, stateAt(check, indexOf(ADDED), deleted).liveWriteId(0));
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    @Timeout(120)
    void aKeyFoundByItsJoinersScanIsInPlaceOnlyWhereItsServingReplicasHoldTheWriteTheScanRead(final int replicas)
        throws InterruptedException
    {
        final KvClient client = loaded(replicas);
        final int[] moving = Arrays.stream(ChangingStore.movingKeys(client, KEYS)).filter(k -> k != LONG_KEY)
            .limit(4).toArray();
        final KvSession session = store.session(101);
        final KvSession check = store.session(103);
        final RefillBatch batch = session.refillBatch();
        // the added member holds no copy yet: a scan that read a write there the serving replicas do not hold is
        // read whole, and the key copied
        final KeyState head = stateAt(check, indexOf(before[moving[0]][0]), moving[0]);
        assertTrue(batch.addScanned(key(moving[0]), indexOf(ADDED), head.word, KvBlockLayout.NEVER, head.writeId + 1));
        assertTrue(batch.addScanned(key(moving[1]), indexOf(ADDED), head.word, KvBlockLayout.NEVER, 42));
        batch.run();
        assertEquals(RefillBatch.REFILLED, batch.outcome(0), "a scanned write the head does not hold is copied over");
        assertEquals(RefillBatch.REFILLED, batch.outcome(1), "a key the joiner lacks is copied");
        batch.clear();
        assertCopyAsHead(check, moving[0]);
        assertCopyAsHead(check, moving[1]);

        // copies in place, as the scan reads them: in place without another read of the joiner; one scanned before a
        // write that reached its serving replicas only is read whole
        for (int i = 2; i < moving.length; i++)
        {
            assertTrue(batch.add(key(moving[i]), indexOf(ADDED)));
        }
        batch.run();
        batch.clear();
        final KeyState copy = stateAt(check, indexOf(ADDED), moving[2]);
        final KeyState stale = stateAt(check, indexOf(ADDED), moving[3]);
        assertTrue(batch.addScanned(key(moving[2]), indexOf(ADDED), copy.word, copy.expireAt, copy.writeId));
        assertTrue(batch.addScanned(key(moving[3]), indexOf(ADDED), stale.word, stale.expireAt, stale.writeId - 1));
        batch.run();
        assertEquals(RefillBatch.IN_PLACE, batch.outcome(0), "the scanned copy holds the head's write");
        assertEquals(RefillBatch.IN_PLACE, batch.outcome(1), "read whole, the copy holds the head's write");
        batch.clear();
        assertCopyAsHead(check, moving[2]);
        assertCopyAsHead(check, moving[3]);
    }

    /** Keys on nodes 1 to 3 (one of them with a value past 8 KiB), then node 4 added: the change in its fill. */
    private KvClient loaded(final int replicas) throws InterruptedException
    {
        store.start(replicas);
        final KvClient client = store.connect(100);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), k == LONG_KEY ? new byte[10_000] : bytes("v0-" + k));
            before[k] = client.replicasOf(key(k));
        }
        store.startNode(ADDED);
        store.phase(2, replicas, Membership.FILL, client);
        // an operation reads the membership again: the client's placements are the change's from then on
        client.get(key(0));
        return client;
    }

    /** The key's copy on the added member names the write its head before the change names, with the same value. */
    private void assertCopyAsHead(final KvSession check, final int k)
    {
        final int head = indexOf(before[k][0]);
        final long headWrite = stateAt(check, head, k).liveWriteId(0);
        assertEquals(headWrite, stateAt(check, indexOf(ADDED), k).liveWriteId(0),
            "key " + k + "'s copy on the added member names its head's write");
        if (headWrite != KvBlockLayout.NO_WRITE)
        {
            assertArrayEquals(valueAt(check, head, k), valueAt(check, indexOf(ADDED), k), "key " + k + "'s value");
        }
    }

    private static KeyState stateAt(final KvSession check, final int node, final int k)
    {
        return check.probe().readKey(node, KeyHash.hash(key(k)), key(k));
    }

    private static byte[] valueAt(final KvSession check, final int node, final int k)
    {
        final KeyState state = stateAt(check, node, k);
        assertNotEquals(KvBlockLayout.NO_WRITE, state.liveWriteId(0), "key " + k + " has a value at node " + node);
        check.probe().readWholeBlock(node, state.word, key(k));
        return KvBlockLayout.value(check.probe().block(), 0);
    }
}
