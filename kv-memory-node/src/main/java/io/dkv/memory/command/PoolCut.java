package io.dkv.memory.command;

import io.dkv.client.KvClient;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.RollbackReport;
import io.dkv.raas.Membership;
import io.dkv.raas.meta.MetaDirectory;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pool that lost every copy at once comes back at one cut (kv-memory-node/README.md, "Coming back"): when no
 * member serves, every member that came back from a disk with versions publishes the durable epoch and the
 * cluster's durable epoch D its disk kept; the cut is the least of those durable epochs (at least the greatest D
 * kept: a node dropped versions only below its own D), the same for whoever computes it, since a node holds them as
 * loaded until it serves again. Each node rolls its own keys back to the cut, then waits until every other member
 * did, before its refill reads any of them: a copy read before its node rolled back would bring a later epoch back.
 * Where some member serves and answers, not every copy was lost, and no cut is taken (a rollback of live nodes is
 * not built: kv-memory-node/README.md); one listed as serving that does not answer is waited for, as a member down
 * is: its lease may not have run out yet.
 */
final class PoolCut
{
    private static final long SAY_EVERY_NANOS = 10_000_000_000L;
    /** How long one try waits for the members; the node's command then starts its refill, and this, again. */
    private static final long GIVE_UP_NANOS = 120_000_000_000L;
    private static final long POLL_MS = 100;
    private static final Duration ROLLBACK_TIMEOUT = Duration.ofMinutes(10);

    private final MemoryNode node;
    private final MetaDirectory directory;
    private final PrintStream out;

    PoolCut(final MemoryNode node, final MetaDirectory directory, final PrintStream out)
    {
        this.node = node;
        this.directory = directory;
        this.out = out;
    }

    /**
     * Roll this node back to the pool's cut where every copy was lost, and wait until every member did; return at
     * once where no cut is needed.
     *
     * @throws InterruptedException  when the node stops meanwhile.
     * @throws IllegalStateException when the members did not all come back, or roll back, within two minutes (the
     *                               node stays joining, and its command tries again: the cut is the same then).
     */
    void comeBack(final KvClient client) throws InterruptedException
    {
        if (!node.awaitsCut())
        {
            return;
        }
        final long self = node.nodeId();
        long saidAt = System.nanoTime() - SAY_EVERY_NANOS;
        final long giveUpAt = System.nanoTime() + GIVE_UP_NANOS;
        long cut = 0;
        List<Long> waitedFor = List.of();
        while (true)
        {
            if (System.nanoTime() - giveUpAt >= 0)
            {
                throw new IllegalStateException("no member serves, and memory nodes " + waitedFor + " did not " +
                    (cut == 0 ? "come back" : "roll back to epoch " + cut) + " within " +
                    GIVE_UP_NANOS / 1_000_000_000L + " s");
            }
            final Membership membership = directory.membership();
            final Map<Long, MemoryNodeDisk> disks = new HashMap<>();
            for (final MemoryNodeDisk disk : client.memoryNodeDisks())
            {
                disks.put(disk.nodeId(), disk);
            }
            final List<Long> away = new ArrayList<>();
            long least = Long.MAX_VALUE;
            long greatestKeptD = 0;
            for (final long member : membership.memberIds())
            {
                final MemoryNodeDisk disk = disks.get(member);
                final boolean reachable = disk != null && disk.reachable();
                if (membership.serves(member) && reachable)
                {
                    if (cut == 0)
                    {
                        out.printf("memory node %d serves: not every copy was lost, and memory node %d keeps its " +
                            "keys as loaded from its disk%n", member, self);
                        out.flush();
                    }
                    return;
                }
                if (!reachable)
                {
                    // down, or listed as serving until its lease runs out: either way, not yet known
                    away.add(member);
                }
                else if (disk.restoredDurableEpoch() > 0)
                {
                    least = Math.min(least, disk.restoredDurableEpoch());
                    greatestKeptD = Math.max(greatestKeptD, disk.restoredClusterDurableEpoch());
                }
            }
            final boolean say = System.nanoTime() - saidAt >= 0;
            if (!away.isEmpty())
            {
                waitedFor = away;
                if (say)
                {
                    out.printf("no member serves that answers: memory node %d waits for memory nodes %s to come back " +
                        "(or be seen down) before choosing the epoch every key comes back at%n", self, away);
                    out.flush();
                    saidAt = System.nanoTime() + SAY_EVERY_NANOS;
                }
                Thread.sleep(POLL_MS);
                continue;
            }
            if (cut == 0)
            {
                // never below a D some node dropped versions by; never so by the rules (each D was at most every
                // node's durable epoch then), so a cut raised here is said
                cut = Math.max(least, greatestKeptD);
                if (least < greatestKeptD)
                {
                    out.printf("memory nodes kept a durable epoch %d below the cluster's durable epoch %d: the cut " +
                        "is %d%n", least, greatestKeptD, cut);
                }
                final MemoryNodeDisk own = disks.get(self);
                if (own == null || own.rolledBackTo() != cut)
                {
                    final RollbackReport report = node.rollBack(cut, ROLLBACK_TIMEOUT);
                    out.printf("no member served: memory node %d rolled its keys back to epoch %d, the pool's cut: " +
                        "%,d keys to an older version, %,d removed, %,d versions dropped, %,d ms%n", self, cut,
                        report.keysRolledBack(), report.keysRemoved(), report.versionsDropped(), report.millis());
                    out.flush();
                }
                continue;
            }
            final List<Long> behind = new ArrayList<>();
            for (final long member : membership.memberIds())
            {
                final MemoryNodeDisk disk = disks.get(member);
                if (disk.restoredDurableEpoch() > 0 && disk.rolledBackTo() != cut)
                {
                    behind.add(member);
                }
            }
            waitedFor = behind;
            if (behind.isEmpty())
            {
                return;
            }
            if (say)
            {
                out.printf("memory node %d waits for memory nodes %s to roll back to epoch %d before its refill%n",
                    self, behind, cut);
                out.flush();
                saidAt = System.nanoTime() + SAY_EVERY_NANOS;
            }
            Thread.sleep(POLL_MS);
        }
    }
}
