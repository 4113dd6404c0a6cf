package io.dkv.client;

import io.dkv.client.index.KeyState;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.raas.Membership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static io.dkv.client.ChangingStore.ADDED;
import static io.dkv.client.ChangingStore.bytes;
import static io.dkv.client.ChangingStore.indexOf;
import static io.dkv.client.ChangingStore.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handover pass of a membership change reads again what was written since its fill, not every key it moves
 * (client/README.md, "Membership change", "The handover"): after a fill that found every moving key in place it reads
 * the members' indexes whole, seals each key no write touched since from the word the fill noted at its tail, and reads
 * again, and seals one by one, only the keys a write touched since. Among those, writes whose writers died half way:
 * one that left a new value at the key's tail alone, one that emptied the tail's slot alone (a delete); both are
 * rolled forward from the tail and copied onto the added member once their writer's time is past, and every copy of
 * every key is where the new placement says, holding the key's last write.
 */
class HandoverSinceFillTest
{
    private static final int KEYS = 600;

    private final ChangingStore store = new ChangingStore();

    @AfterEach
    void close() throws Exception
    {
        store.close();
    }

    @ParameterizedTest(name = "{0} cop(ies)")
    @ValueSource(ints = {1, 2})
    @Timeout(120)
    void theHandoverPassReadsOnlyTheKeysWrittenSinceTheFillAndRollsHalfDoneWritesForward(final int replicas)
        throws InterruptedException
    {
        store.start(replicas);
        final KvClient client = store.connect(100);
        final long[][] before = new long[KEYS][];
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), bytes("v0-" + k));
            before[k] = client.replicasOf(key(k));
        }
        store.startNode(ADDED);
        store.phase(2, replicas, Membership.FILL, client);
        final RefillReport fill = client.fillMembershipChange();
        assertTrue(fill.complete(), "the fill found every moving key in place: " + fill);
        final long moving = fill.refilled() + fill.inPlace();

        // during the fill, after its pass: three moving keys written whole, one not moving, and two half-done writes
        final int[] movingKeys = movingKeys(client, 5);
        final int still = keyNotMoving(client);
        for (int i = 0; i < 3; i++)
        {
            client.put(key(movingKeys[i]), bytes("whole-" + movingKeys[i]));
        }
        client.put(key(still), bytes("still"));
        final KvSession dead = store.session(101);
        final byte[] halfPut = key(movingKeys[3]);
        final byte[] halfDeleted = key(movingKeys[4]);
        writeAtTailAlone(dead, before[movingKeys[3]], halfPut, bytes("half-put"));
        writeAtTailAlone(dead, before[movingKeys[4]], halfDeleted, null);

        store.phase(3, replicas, Membership.SWITCH, client);
        store.phase(4, replicas, Membership.HANDOVER, client);
        final RefillReport sealed = client.fillMembershipChange();
        assertTrue(sealed.complete(), "the handover pass seals every key: " + sealed);
        assertEquals(5, sealed.keysSeen(), "the handover pass reads again only the five moving keys written since " +
            "the fill (of " + moving + " moving keys): " + sealed);
        assertEquals(moving, sealed.refilled() + sealed.inPlace(), "every moving key sealed: " + sealed);
        assertEquals(moving, sealedTails(store, client, before), "each at its last replica before the change");

        store.phase(5, replicas, Membership.CLEANUP, client);
        store.directory.membership(ChangingStore.steady(6, replicas, ChangingStore.ALL));
        Thread.sleep(client.membershipPhaseGapMs());

        final KvClient fresh = store.connect(102);
        final KvSession check = store.session(103);
        for (int k = 0; k < KEYS; k++)
        {
            final byte[] expected = k == movingKeys[3] ? bytes("half-put") : k == movingKeys[4] ? null :
                k == still ? bytes("still") : k == movingKeys[0] || k == movingKeys[1] || k == movingKeys[2] ?
                bytes("whole-" + k) : bytes("v0-" + k);
            assertArrayEquals(expected, fresh.get(key(k)), "key " + k + " after the change");
            final long[] replicasOf = fresh.replicasOf(key(k));
            final long hash = KeyHash.hash(key(k));
            final long writeId = check.probe().readKey(indexOf(replicasOf[0]), hash, key(k)).liveWriteId(0);
            for (final long id : replicasOf)
            {
                assertEquals(writeId, check.probe().readKey(indexOf(id), hash, key(k)).liveWriteId(0),
                    "key " + k + "'s copy on memory node " + id + " names the write its head names");
            }
        }
    }

    /** @return the keys whose last replica before the change holds a sealed word. */
    private static long sealedTails(final ChangingStore store, final KvClient client, final long[][] before)
    {
        final KvSession check = store.session(104);
        long sealed = 0;
        for (int k = 0; k < KEYS; k++)
        {
            final byte[] key = key(k);
            final KeyState tail = check.probe().readKey(indexOf(before[k][before[k].length - 1]), KeyHash.hash(key),
                key);
            sealed += tail.committed() && SlotWord.isSealed(tail.word) ? 1 : 0;
        }
        return sealed;
    }

    /** @return {@code count} keys the change moves onto the added member (a client's placement is the one after). */
    private static int[] movingKeys(final KvClient client, final int count)
    {
        final int[] found = ChangingStore.movingKeys(client, KEYS);
        assertTrue(found.length >= count, "keys moving onto the added member: " + found.length);
        return Arrays.copyOf(found, count);
    }

    private static int keyNotMoving(final KvClient client)
    {
        for (int k = 0; k < KEYS; k++)
        {
            if (!Arrays.stream(client.replicasOf(key(k))).anyMatch(id -> id == ADDED))
            {
                return k;
            }
        }
        throw new AssertionError("no key stays where it is");
    }

    /**
     * A writer that dies right after its CAS of the key's tail (the last of its placement {@code before} the change):
     * a new value there, or the tail's slot emptied ({@code value} null), and nothing else.
     */
    private static void writeAtTailAlone(final KvSession dead, final long[] before, final byte[] key,
        final byte[] value)
    {
        final int tail = indexOf(before[before.length - 1]);
        final long hash = KeyHash.hash(key);
        final KeyState atTail = dead.probe().readKey(tail, hash, key);
        final long desired;
        if (value == null)
        {
            desired = SlotWord.EMPTY;
        }
        else
        {
            final int length = KvBlockLayout.blockLength(key.length, value.length);
            final long offset = dead.chunks().writeBlock(tail, key, MemorySegment.ofArray(value), length,
                KvBlockLayout.NEVER, KvBlockLayout.drawWriteId(), dead.chunks().epochs().current());
            desired = SlotWord.committed(KeyHash.fingerprint(hash), offset, length, false,
                dead.chunks().generationOf(tail, offset));
        }
        assertTrue(dead.writer().swapAt(tail, hash, key, atTail.slot, atTail.word, desired),
            "the dead writer's CAS of the tail");
    }
}
