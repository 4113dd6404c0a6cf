package io.dkv.memory.command;

import io.dkv.client.KvClient;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.format.MemoryNodeProtocol;
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
 * A pool that lost every copy of some keys comes back at one cut (kv-memory-node/README.md, "Coming back"): when no
 * member serves, every member that came back from a disk with versions publishes the durable epoch and the
 * cluster's durable epoch D its disk kept; the cut is the least of those durable epochs among the members some keys
 * come back from (the sources: not a node that stopped serving before the others, whose keys are refilled from
 * them), at least the greatest D kept (a node dropped versions only below its own D), the same for whoever computes
 * it, since a node holds them as loaded until it serves again. Each node rolls its own keys back to the cut, then
 * waits until every other member did, before its refill reads any of them: a copy read before its node rolled back
 * would bring a later epoch back. Where some member serves and answers, not every copy was lost unless as many
 * members as a key has copies do not serve: then each other member is asked to restart from its disk (a live node's
 * keys cannot be rolled back under its writers), and the pool comes back at one cut as above. One listed as serving
 * that does not answer is waited for, as a member down is: its lease may not have run out yet.
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
        final Map<Long, Long> asked = new HashMap<>();
        poll:
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
            long leastOfAll = Long.MAX_VALUE;
            long greatestKeptD = 0;
            for (final long member : membership.memberIds())
            {
                final MemoryNodeDisk disk = disks.get(member);
                final boolean reachable = disk != null && disk.reachable();
                if (membership.serves(member) && reachable)
                {
                    if (cut == 0 && askToRestart(client, membership, disks, asked))
                    {
                        // every copy of some keys was lost: the members restart from their disks, then every
                        // member comes back at one cut (below)
                        waitedFor = List.of(member);
                        Thread.sleep(POLL_MS);
                        continue poll;
                    }
                    if (cut == 0)
                    {
                        out.printf("memory node %d serves: not every copy was lost, and memory node %d keeps its " +
                            "keys as loaded from its disk%n", member, self);
                        out.flush();
                    }
                    return;
                }
                final long listed = membership.incarnation(member);
                final Long askedOf = asked.get(member);
                if (!reachable || membership.state(member) != Membership.JOINING ||
                    (listed != 0 && disk.incarnation() != listed) || (askedOf != null && askedOf == listed))
                {
                    // down, listed as serving until its lease runs out, stopping to restart from its disk (its
                    // header then is of an incarnation that served, and says nothing of what its disk kept), or
                    // read as another incarnation than listed: not yet known
                    away.add(member);
                }
                else if (disk.restoredDurableEpoch() > 0)
                {
                    if (isSource(membership, member))
                    {
                        least = Math.min(least, disk.restoredDurableEpoch());
                    }
                    leastOfAll = Math.min(leastOfAll, disk.restoredDurableEpoch());
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
                // no source keeps versions (they came back without them): every member's kept epoch bounds it
                cut = Math.max(least == Long.MAX_VALUE ? leastOfAll : least, greatestKeptD);
                if (least < greatestKeptD)
                {
                    out.printf("memory nodes kept a durable epoch %d below the cluster's durable epoch %d: the cut " +
                        "is %d%n", least, greatestKeptD, cut);
                }
                out.printf("the pool's cut is epoch %d: %s%n", cut, keptEpochs(membership, disks));
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

    /**
     * Where a member serves: were every copy of some keys lost (as many members not serving as a key has copies,
     * this node among them), ask each other member that answers to restart from its disk, once an incarnation, so
     * that the pool comes back at one cut (kv-memory-node/README.md, "Every copy of some keys lost while a member
     * serves").
     *
     * @param asked each member's incarnation asked already, by id.
     * @return true when copies were lost and every member asked to restart that could; false when not every copy was
     * lost, or a member that serves cannot restart from a disk (the node then keeps its keys as loaded, as before).
     */
    private boolean askToRestart(final KvClient client, final Membership membership,
        final Map<Long, MemoryNodeDisk> disks, final Map<Long, Long> asked)
    {
        final long self = node.nodeId();
        final MemoryNodeDisk own = disks.get(self);
        if (own != null && own.rolledBackTo() != 0)
        {
            // this incarnation came back at the pool's cut already: a member serves again after it, and this node's
            // refill tried again; the members not serving yet are coming back from the same cut
            return false;
        }
        final long[] members = membership.memberIds();
        int notServing = 0;
        for (final long member : members)
        {
            // keys are placed over the members placed now: one a change adds holds none of them yet
            if (!membership.serves(member) && (membership.placement(member) & Membership.PLACED_BEFORE) != 0)
            {
                notServing++;
            }
        }
        if (notServing < Math.min(membership.replicas(), members.length))
        {
            return false;
        }
        for (final long member : members)
        {
            final MemoryNodeDisk disk = disks.get(member);
            final long incarnation = membership.incarnation(member);
            final Long before = asked.get(member);
            if (member == self || disk == null || !disk.reachable() || (before != null && before == incarnation))
            {
                continue;
            }
            final int status;
            try
            {
                status = client.askToRestartFromDisk(member, incarnation, self);
            }
            catch (final RuntimeException ex)
            {
                // it stopped answering: asked again on the next turn, as whatever incarnation it is then
                continue;
            }
            if (status == MemoryNodeProtocol.OK || status == MemoryNodeProtocol.GONE)
            {
                asked.put(member, incarnation);
                if (status == MemoryNodeProtocol.OK)
                {
                    out.printf("every copy of some keys was lost (%d of %d members not serving, %d copies a key): " +
                        "memory node %d asked memory node %d (incarnation %d) to restart from its disk, so that " +
                        "the pool comes back at one cut%n", notServing, members.length, membership.replicas(), self,
                        member, incarnation);
                    out.flush();
                }
            }
            else if (membership.serves(member))
            {
                out.printf("every copy of some keys was lost, but memory node %d, which serves, cannot restart from " +
                    "a disk (%s): memory node %d keeps its keys as loaded from its disk, and a transaction over " +
                    "both may come back in part%n", member, MemoryNodeProtocol.why(status), self);
                out.flush();
                return false;
            }
        }
        return true;
    }

    /**
     * @return whether the member's disk is where some keys come back from: it stopped serving after as many other
     * members as a key has copies less one (a key placed on it and those is refilled from it, the one that served
     * last: client/README.md, "Every copy down at once"). One that stopped earlier than that (a node that was being
     * refilled when the loss came, its disk of its own crash) is refilled from the others, so its kept durable epoch
     * does not bound the cut. Every member is one while a time is unknown.
     */
    private static boolean isSource(final Membership membership, final long member)
    {
        final long left = membership.leftLive(member) & ~Membership.MEMORY_LOST;
        if (left == 0)
        {
            return true;
        }
        int before = 0;
        for (final long other : membership.memberIds())
        {
            if (other == member)
            {
                continue;
            }
            final long otherLeft = membership.leftLive(other) & ~Membership.MEMORY_LOST;
            if (otherLeft == 0)
            {
                return true;
            }
            if (otherLeft <= left)
            {
                before++;
            }
        }
        return before >= Math.min(membership.replicas(), membership.memberIds().length) - 1;
    }

    /** @return what each member's disk kept, as the cut was taken from it: for the node's log. */
    private static String keptEpochs(final Membership membership, final Map<Long, MemoryNodeDisk> disks)
    {
        final StringBuilder said = new StringBuilder();
        for (final long member : membership.memberIds())
        {
            final MemoryNodeDisk disk = disks.get(member);
            said.append(said.isEmpty() ? "" : "; ").append("memory node ").append(member)
                .append(isSource(membership, member) ? " (a source)" : " (refilled from the others)")
                .append(" kept durable epoch ").append(disk.restoredDurableEpoch())
                .append(" and D ").append(disk.restoredClusterDurableEpoch())
                .append(", stopped serving in membership epoch ")
                .append(membership.leftLive(member) & ~Membership.MEMORY_LOST);
        }
        return said.toString();
    }
}
