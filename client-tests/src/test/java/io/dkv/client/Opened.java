package io.dkv.client;

import io.dkv.client.membership.MembershipView;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a test of this package opened (drivers, memory nodes, clients, sessions), closed in reverse order when it ends,
 * and the settings of the drivers it embeds.
 */
final class Opened implements AutoCloseable
{
    private final List<AutoCloseable> resources = new ArrayList<>();

    /** @return the resource, closed with the others, after any opened after it. */
    <T extends AutoCloseable> T add(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    /**
     * Start a store on {@code shm} in this JVM: a memory node (its own driver, a 64 MiB heap) for each of
     * {@code ids}, all live in the directory's membership with {@code replicas} copies of each key, and a client over
     * them.
     *
     * @return the client, made with {@code context} (its memory nodes and replicas set here).
     */
    KvClient store(final StaticDirectory directory, final long[] ids, final int replicas,
        final KvClientContext context)
    {
        // small nodes: a test class makes many, and a node's shared memory stays mapped by the drivers that read it
        // until the JVM ends
        return store(directory, ids, replicas, context,
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16), new ArrayList<>());
    }

    /**
     * As {@link #store(StaticDirectory, long[], int, KvClientContext)}, each memory node made with a context of
     * {@code memoryNode} and added to {@code started}.
     */
    KvClient store(final StaticDirectory directory, final long[] ids, final int replicas,
        final KvClientContext context, final Supplier<MemoryNodeContext> memoryNode, final List<MemoryNode> started)
    {
        return store("shm", directory, ids, replicas, context, memoryNode, started);
    }

    /** As {@link #store(StaticDirectory, long[], int, KvClientContext)}, every driver on {@code provider}. */
    KvClient store(final String provider, final StaticDirectory directory, final long[] ids, final int replicas,
        final KvClientContext context)
    {
        return store(provider, directory, ids, replicas, context,
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16), new ArrayList<>());
    }

    private KvClient store(final String provider, final StaticDirectory directory, final long[] ids,
        final int replicas, final KvClientContext context, final Supplier<MemoryNodeContext> memoryNode,
        final List<MemoryNode> started)
    {
        final int[] live = new int[ids.length];
        Arrays.fill(live, Membership.LIVE);
        directory.membership(new Membership(1, replicas, ids, live));
        for (final long id : ids)
        {
            final Raas raas = add(RaasDriver.start(driver(provider, id).role(NodeRecord.ROLE_MEMORY), directory));
            started.add(add(MemoryNode.start(raas, memoryNode.get())));
        }
        final Raas clientRaas = add(RaasDriver.start(driver(provider, 100), directory));
        return add(KvClient.connect(clientRaas, context.memoryNodes(ids).replicas(replicas)));
    }

    /** @return a driver of node {@code nodeId} on the provider, for a test's one JVM. */
    static RaasContext driver(final String provider, final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId)
            .requestSlots(256)
            .timeoutMs(10_000);
    }

    /** @return a session of this package's own over the memory nodes {@code ids}, as a client's thread has one. */
    static KvSession session(final Raas raas, final KvClientContext context, final long[] ids)
    {
        final MemoryNodeAvailability availability = new MemoryNodeAvailability(ids, context);
        final MemoryNodeView[] views = new MemoryNodeView[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            views[i] = availability.readAtConnect(raas, i);
        }
        return new KvSession(raas, context, availability,
            new MembershipView(raas, availability, MembershipView.read(raas), context), views);
    }

    public void close() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
        resources.clear();
    }

    /** @return every key with a value in the store, the store's own (segments, nodes, pieces) among them. */
    static int allKeys(final KvClient client)
    {
        int keys = 0;
        long cursor = io.dkv.client.keyspace.ScanCursor.START;
        do
        {
            final io.dkv.client.keyspace.ScanPage page = client.scanAll(cursor, 100);
            keys += page.keys().size();
            cursor = page.cursor();
        }
        while (cursor != io.dkv.client.keyspace.ScanCursor.START);
        return keys;
    }
}
