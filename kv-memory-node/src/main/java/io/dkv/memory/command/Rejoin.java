package io.dkv.memory.command;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.RefillReport;
import io.dkv.memory.MemoryNode;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.meta.MetaDirectory;

import java.io.PrintStream;

/**
 * A memory node back in a cluster that keeps several copies of each key starts as joining (the
 * MetaServer decides, seeing a member register again): nobody reads it until its copies are brought
 * up to date. This refills them, as a client of the cluster over the node's own driver, while other
 * clients go on, then asks the MetaServer to make this incarnation live again. A refill that leaves
 * keys unsettled is run again; one that fails leaves the node joining, saying why, and the node's command starts
 * another while it stays joining (also when its lease lapsed while it ran, and it registered again).
 */
final class Rejoin implements Runnable
{
    private static final int MAX_PASSES = 10;

    private final Raas raas;
    private final MemoryNode node;
    private final MetaDirectory directory;
    private final boolean persistent;
    private final PrintStream out;
    private final long registeredIncarnation;
    private final long registeredAtNanos;

    /**
     * @param node              the node, in this process: rolled back to the pool's cut when no member serves.
     * @param persistent        the node keeps keys on disk: the copies it is given are written there too.
     * @param registeredIncarnation the incarnation this process registered as, before it loaded its keys.
     * @param registeredAtNanos when (System.nanoTime(), true time) that registration ended: the MetaServer listed the
     *                          incarnation from then on, as joining if it must be refilled, while it loaded its keys.
     */
    Rejoin(final Raas raas, final MemoryNode node, final MetaDirectory directory, final boolean persistent,
        final PrintStream out, final long registeredIncarnation, final long registeredAtNanos)
    {
        this.raas = raas;
        this.node = node;
        this.directory = directory;
        this.persistent = persistent;
        this.out = out;
        this.registeredIncarnation = registeredIncarnation;
        this.registeredAtNanos = registeredAtNanos;
    }

    /** @return true when the MetaServer lists this node as joining: a refill must run before it is read. */
    boolean needed()
    {
        return directory.membership().state(raas.self().id()) == Membership.JOINING;
    }

    public void run()
    {
        final long nodeId = raas.self().id();
        final long incarnation = raas.self().epoch();
        try
        {
            final Membership membership = directory.membership();
            out.printf("memory node %d joins as incarnation %d: refilling its copies of keys (%d per key) before " +
                "it is read%n", nodeId, incarnation, membership.replicas());
            out.flush();
            try (KvClient client = KvClient.connect(raas, new KvClientContext().memoryNodes(membership.memberIds())
                .durability(persistent ? Durability.ASYNC : Durability.NONE)))
            {
                new PoolCut(node, directory, out).comeBack(client);
                for (int pass = 1; pass <= MAX_PASSES; pass++)
                {
                    // joining since its registration, unless it registered again since (its lease lapsed)
                    final long joiningForMs = incarnation == registeredIncarnation ?
                        (System.nanoTime() - registeredAtNanos) / 1_000_000L : 0;
                    final RefillReport report = client.refill(nodeId, joiningForMs);
                    out.printf("refill pass %d: %,d keys seen, %,d copied or cleared, %,d in place (%,d found " +
                        "so from whole reads), %,d unsettled, %,d ms (%,d keys one by one, the rest in batches)%n",
                        pass, report.keysSeen(), report.refilled(), report.inPlace(), report.swept(),
                        report.unsettled(), report.millis(), report.alone());
                    out.flush();
                    if (report.complete())
                    {
                        directory.markLive(nodeId, incarnation);
                        node.endRecovery();
                        out.printf("memory node %d is live again%n", nodeId);
                        out.flush();
                        return;
                    }
                }
                out.printf("memory node %d stays joining: keys were still unsettled after %d passes; it tries again " +
                    "shortly%n", nodeId, MAX_PASSES);
            }
        }
        catch (final RaasException | KvException | IllegalStateException ex)
        {
            out.printf("memory node %d stays joining: refilling it failed: %s; it tries again shortly%n", nodeId,
                ex.getMessage());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return;
        }
        out.flush();
    }
}
