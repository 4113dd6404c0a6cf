package io.dkv.client;

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

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With two copies, a compare-and-set of a version reads the head by the one slot the version was read from, when its
 * word still stands there: that word names the version's write. A split of the head's subtable moves the key's slot
 * and leaves another word at the old place; the version still holds (the key's value is that write), so the head
 * is then read as any replica is, not judged changed.
 */
class ReplicatedVersionTest
{
    private static final long[] IDS = {1, 2};
    private static final byte[] KEY = "versioned".getBytes(StandardCharsets.UTF_8);
    private static final int MAX_OTHER_KEYS = 4_000;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aVersionHoldsAfterASplitMovedItsSlotAndNotOnceWrittenOver(final String provider)
    {
        directory.membership(new Membership(1, 2, IDS, new int[]{Membership.LIVE, Membership.LIVE}));
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(Opened.driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            // two groups per subtable: a few hundred keys split it several times
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(2).maxGlobalDepth(9)));
        }
        final Raas clientRaas = open.add(RaasDriver.start(Opened.driver(provider, 100), directory));
        final KvClient client = open.add(KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS)));

        client.put(KEY, bytes("first"));
        final Versioned read = client.getVersioned(KEY);
        int others = 0;
        while (client.getVersioned(KEY).slotOffset == read.slotOffset)
        {
            assertTrue(others < MAX_OTHER_KEYS, "no split moved the key's slot in " + others + " inserts");
            client.put(bytes("other-" + others), bytes("value " + others));
            others++;
        }
        assertNotEquals(read.slotOffset, client.getVersioned(KEY).slotOffset);

        assertTrue(client.compareAndSetVersion(KEY, read, bytes("second")),
            "the key still holds the write the version was read from, in another slot");
        assertArrayEquals(bytes("second"), client.get(KEY));
        assertFalse(client.compareAndSetVersion(KEY, read, bytes("third")), "a version written over since");
        final Versioned current = client.getVersioned(KEY);
        assertTrue(client.compareAndSetVersion(KEY, current, bytes("fourth")));
        assertFalse(client.compareAndSetVersion(KEY, current, bytes("fifth")), "that version is written over now");
        assertArrayEquals(bytes("fourth"), client.get(KEY));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
