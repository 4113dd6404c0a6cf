package io.dkv.client;

import io.dkv.client.index.KeyState;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer that dies after winning a key's tail leaves its write on the tail alone: readers never see
 * it (they read the head), and the next writer, finding the same unfinished write at the tail for
 * longer than an operation may last, rolls it forward to the head before writing its own. Here the
 * dead writer is a session of this test that stops after its tail CAS.
 */
class ReplicaRollForwardTest
{
    private static final long[] IDS = {1, 2};
    private static final byte[] KEY = "rolled".getBytes(StandardCharsets.UTF_8);

    private final StaticDirectory directory =
        new StaticDirectory().membership(new Membership(1, 2, IDS, new int[]{Membership.LIVE, Membership.LIVE}));
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void theNextWriterRollsADeadWritersTailForwardFirst(final String provider)
    {
        for (final long id : IDS)
        {
            final Raas raas = RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory);
            open.add(raas);
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20)));
        }
        final Raas clientRaas = RaasDriver.start(Opened.driver(provider, 100), directory);
        open.add(clientRaas);
        // an operation may last a second: past that, a write left at the tail is taken for its writer's death
        final KvClientContext clientContext =
            new KvClientContext().memoryNodes(IDS).timeoutMs(1_000).maxRetries(1_000).conclude();
        final KvClient client = KvClient.connect(clientRaas, clientContext);
        open.add(client);
        client.put(KEY, bytes("v1"));

        final KvSession dead = session(clientRaas, clientContext);
        open.add(dead);
        final long[] replicas = client.replicasOf(KEY);
        final int tail = replicas[1] == IDS[0] ? 0 : 1;
        final long hash = KeyHash.hash(KEY);
        final byte[] v2 = bytes("v2");
        final int length = KvBlockLayout.blockLength(KEY.length, v2.length);
        final long writeId = KvBlockLayout.drawWriteId();
        final long offset = dead.chunks().writeBlock(tail, KEY, MemorySegment.ofArray(v2), length,
            KvBlockLayout.NEVER, writeId, dead.chunks().epochs().current());
        final KeyState atTail = dead.probe().readKey(tail, hash, KEY);
        assertTrue(dead.writer().swapAt(tail, hash, KEY, atTail.slot, atTail.word,
            SlotWord.committed(KeyHash.fingerprint(hash), offset, length, false,
                dead.chunks().generationOf(tail, offset))),
            "the dead writer won the tail");

        assertArrayEquals(bytes("v1"), client.get(KEY), "a write that reached only the tail is not read");
        assertTrue(client.compareAndSet(KEY, v2, bytes("v3")),
            "the dead writer's v2 was rolled forward to the head before this compare-and-set judged the value");
        assertArrayEquals(bytes("v3"), client.get(KEY));
        final long first = dead.probe().readKey(0, hash, KEY).writeId;
        assertEquals(first, dead.probe().readKey(1, hash, KEY).writeId, "both replicas name the same write at rest");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void acknowledgingOnceTheTailIsWonIsCaughtAsAReadOfAnOlderValue(final String provider)
    {
        final KvClientContext clientContext = cluster(provider);
        final KvClient client =
            KvClient.connect(open.add(RaasDriver.start(Opened.driver(provider, 100), directory)), clientContext);
        open.add(client);
        final Raas writerRaas = open.add(RaasDriver.start(Opened.driver(provider, 101), directory));
        final KvSession broken = session(writerRaas, clientContext);
        open.add(broken);
        final KvSession right = session(writerRaas, clientContext);
        open.add(right);

        assertTrue(right.write(KEY, MemorySegment.ofArray(bytes("v1")), null, true, KvBlockLayout.NEVER));
        assertTrue(right.write(KEY, MemorySegment.ofArray(bytes("v2")), null, true, KvBlockLayout.NEVER));
        assertArrayEquals(bytes("v2"), client.get(KEY), "the protocol: an acknowledged write is read");

        broken.chain().acknowledgeAtTail = true;
        assertTrue(broken.write(KEY, MemorySegment.ofArray(bytes("v3")), null, true, KvBlockLayout.NEVER),
            "acknowledged");
        assertArrayEquals(bytes("v2"), client.get(KEY),
            "the broken variant: a read after the acknowledged write still returns the value before it");
    }

    /** Two memory nodes keeping two copies of each key; @return a client context for them. */
    private KvClientContext cluster(final String provider)
    {
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20)));
        }
        return new KvClientContext().memoryNodes(IDS).timeoutMs(1_000).maxRetries(1_000).conclude();
    }

    private static KvSession session(final Raas raas, final KvClientContext context)
    {
        return Opened.session(raas, context, IDS);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
