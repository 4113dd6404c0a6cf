package io.dkv.client;

import io.dkv.client.txn.RawKeys;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under durability sync a transaction's intents are on their node's disk as intents: a memory node that restarts in
 * the middle of a transaction's resolution comes back with the committed primary and the unresolved secondary as they
 * were, and readers see the transaction whole, committed; one that restarts with a pending transaction on it reads as
 * before that transaction, which its readers then abort.
 */
class IntentDurabilityTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;
    private static final byte[] PRIMARY = bytes("primary");
    private static final byte[] SECONDARY = bytes("secondary");

    private final StaticDirectory directory = new StaticDirectory();

    @Test
    void aCommittedTransactionLeftUnresolvedIsWholeAfterItsNodeRestarted(@TempDir final Path data)
    {
        directory.membership(new Membership(1, 1, new long[]{NODE}, new int[]{Membership.LIVE}));
        final MemoryNodeContext node = new MemoryNodeContext().indexGroups(64).chunkBytes(2 << 20).heapChunks(8)
            .dataDir(data);
        Raas memoryRaas = start(NODE, NodeRecord.ROLE_MEMORY);
        MemoryNode memory = MemoryNode.start(memoryRaas, node);
        try (Raas clientRaas = start(CLIENT, NodeRecord.ROLE_COMPUTE);
            KvClient client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE)
                .durability(Durability.SYNC).txnPushMs(200)))
        {
            client.put(PRIMARY, bytes("p0"));
            client.put(SECONDARY, bytes("s0"));
            client.put(bytes("pending"), bytes("before"));
            final RawKeys raw = client.rawKeys();
            final Versioned primary = raw.read(PRIMARY);
            assertTrue(raw.swap(PRIMARY, primary, IntentLayout.encode(IntentLayout.PRIMARY_PENDING, 9, null,
                bytes("p1"), 0, bytes("p0"), 0, null), KvBlockLayout.INTENT));
            final Versioned placed = raw.lastWritten();
            final Versioned secondary = raw.read(SECONDARY);
            assertTrue(raw.swap(SECONDARY, secondary, IntentLayout.encode(IntentLayout.SECONDARY, 9, PRIMARY,
                bytes("s1"), 0, bytes("s0"), 0, null), KvBlockLayout.INTENT));
            assertTrue(raw.swap(PRIMARY, placed, IntentLayout.encode(IntentLayout.PRIMARY_COMMITTED, 9, null,
                bytes("p1"), 0, bytes("p0"), 0, new byte[][]{SECONDARY}), KvBlockLayout.INTENT), "committed");
            final Versioned other = raw.read(bytes("pending"));
            assertTrue(raw.swap(bytes("pending"), other, IntentLayout.encode(IntentLayout.PRIMARY_PENDING, 10, null,
                bytes("after"), 0, bytes("before"), 0, null), KvBlockLayout.INTENT), "a transaction left pending");

            memory.close();
            memoryRaas.close();
            memoryRaas = start(NODE, NodeRecord.ROLE_MEMORY);
            memory = MemoryNode.start(memoryRaas, node);
            assertEquals(3, memory.keysRecovered());

            assertTrue(KvBlockLayout.isIntent(afterRestart(() -> raw.read(SECONDARY)).expireAtMillis()),
                "the secondary came back as an intent, not as a value of its record's bytes");
            assertArrayEquals(bytes("s1"), client.get(SECONDARY), "read as its committed primary says");
            assertArrayEquals(bytes("p1"), client.get(PRIMARY));
            assertArrayEquals(bytes("before"), client.get(bytes("pending")), "aborted by its reader");
            client.put(PRIMARY, bytes("p2"));
            assertArrayEquals(bytes("s1"), client.get(SECONDARY));
            assertNull(Intent.orNull(raw.read(SECONDARY)), "the write on the primary resolved the secondary first");
        }
        finally
        {
            memory.close();
            memoryRaas.close();
        }
    }

    private Raas start(final long nodeId, final int role)
    {
        return RaasDriver.start(Opened.driver("shm", nodeId).role(role), directory);
    }

    private static <T> T afterRestart(final Supplier<T> operation)
    {
        KvException last = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                return operation.get();
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

    /** Whether a raw read is an intent: its version, or null when it is a value or none. */
    private static final class Intent
    {
        static Versioned orNull(final Versioned read)
        {
            return read != null && KvBlockLayout.isIntent(read.expireAtMillis()) ? read : null;
        }
    }
}
