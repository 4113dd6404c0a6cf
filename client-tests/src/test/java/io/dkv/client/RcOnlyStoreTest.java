package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on devices without DC (as on an RNIC that has none): every driver runs RaaS RC-only, and two replicas'
 * writes, reads, deletes, compare-and-sets and asynchronous forms answer as they do over DC, the index splitting
 * under them.
 */
class RcOnlyStoreTest
{
    private static final long[] IDS = {1, 2};
    private static final int KEYS = 150;

    private final Opened open = new Opened();
    private final StaticDirectory directory = new StaticDirectory();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoReplicasAnswerEveryOperationWithoutDc(final String provider)
    {
        directory.membership(new Membership(1, 2, IDS, new int[] {Membership.LIVE, Membership.LIVE}));
        for (final long id : IDS)
        {
            final Raas raas =
                open.add(RaasDriver.start(withoutDc(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            assertTrue(raas.self().rcOnly(), raas.self().toString());
            open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(2).maxGlobalDepth(9)));
        }
        final Raas clientRaas = open.add(RaasDriver.start(withoutDc(provider, 100), directory));
        final KvClient client = open.add(KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS)));

        for (int i = 0; i < KEYS; i++)
        {
            client.put(bytes("key-" + i), bytes("value " + i));
        }
        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(bytes("value " + i), client.get(bytes("key-" + i)), "key-" + i);
        }
        assertTrue(client.compareAndSet(bytes("key-0"), bytes("value 0"), bytes("changed")));
        assertFalse(client.compareAndSet(bytes("key-0"), bytes("value 0"), bytes("again")));
        assertTrue(client.delete(bytes("key-1")));
        assertNull(client.get(bytes("key-1")));

        final List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < 32; i++)
        {
            puts.add(client.putAsync(bytes("async-" + i), bytes("async " + i)));
        }
        puts.forEach(CompletableFuture::join);
        for (int i = 0; i < 32; i++)
        {
            assertArrayEquals(bytes("async " + i), client.getAsync(bytes("async-" + i)).join(), "async-" + i);
        }
        assertArrayEquals(bytes("changed"), client.get(bytes("key-0")));
        assertTrue(client.writesAnsweredByCompletions() > 0, "writes carried by completions over RC as over DC");
    }

    private static RaasContext withoutDc(final String provider, final long nodeId)
    {
        final RaasContext context = Opened.driver(provider, nodeId);
        context.verbs().dc(false);
        return context;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
