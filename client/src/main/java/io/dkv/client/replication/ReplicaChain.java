package io.dkv.client.replication;

import io.dkv.client.IntentFound;
import io.dkv.client.KvClientConfiguration;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.MemoryFullException;
import io.dkv.client.RaceRetries;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.async.AsyncWrite;
import io.dkv.client.index.IndexProbe;
import io.dkv.client.index.KeyState;
import io.dkv.client.index.SlotWriter;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.node.HeapChunks;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import io.dkv.format.ValueKind;
import io.dkv.raas.Membership;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's writes of keys kept on several memory nodes (replicas), run over its session's
 * one-sided primitives: the protocol of client/README.md, "Replication". A write puts its block on
 * every serving replica, reads each replica's slot, goes on only from a settled state (every serving
 * replica names the same write), wins the tail (the last serving replica in placement order) by one
 * CAS, then swaps the others from the tail's predecessor to the head. The head's swap is the write's
 * linearization point: readers read the head alone, and the head is never ahead of a backup. A write
 * that found the replicas unsettled for longer than an operation may last (its writer died) rolls
 * the tail's write forward first.
 *
 * <p>Past the usual length: the placement of a key in each phase of a membership change (serving, joining, switching
 * heads) and the rounds of the protocol share the write's arrays; the placement is the seam to split along next.
 */
public final class ReplicaChain
{
    /** A write's rule for going on, judged against the head's value in a settled state. */
    public static final int PUT = 0;
    public static final int DELETE = 1;
    public static final int IF_VALUE = 2;
    public static final int IF_VERSION = 3;
    /** What {@link #refill} did with a key. */
    static final int IN_PLACE = 0;
    static final int REFILLED = 1;
    static final int NOT_PLACED = 2;
    static final int NOT_SETTLED = 3;
    /** What {@link #sealForChange} did with a key: sealed it now, or found it sealed ({@link #IN_PLACE}). */
    static final int SEALED = 4;
    private static final int REFILL_ATTEMPTS = 1_000;
    private static final long SWITCH_WAIT_PAUSE_NANOS = 1_000_000;
    private static final MemorySegment NO_VALUE = MemorySegment.ofArray(new byte[0]);
    /** Swaps of one replica in a chain after the tail was won, each after the node's scan emptied its slot. */
    private static final int CHAIN_ATTEMPTS = 3;
    /** The first and longest pause of a thread waiting out a node that does not answer ({@link #pauseAfterFault}). */
    private static final long FAULT_PAUSE_MIN_NANOS = 10_000;
    private static final long FAULT_PAUSE_MAX_NANOS = 1_000_000;

    /**
     * A deliberately broken variant, for the tests that show the checks catch it: acknowledge once the tail is won,
     * leaving the rest of the chain to the next writer's roll forward. Never set outside those tests.
     */
    public boolean acknowledgeAtTail;

    /** A key's state at one replica, read alone. */
    private final IndexProbe probe;
    /** Swaps and inserts at one replica. */
    private final SlotWriter writer;
    /** A key's state at every replica, read in one round. */
    private final ReplicaReads reads;
    /** Where this thread's blocks go, and the messages that tell the nodes' CPUs of them. */
    private final HeapChunks chunks;
    private final MembershipView membership;
    private final long[] nodeIds;
    private final KvClientContext context;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    /** The races a write may lose at the tail, and those its force onto a joiner may lose, nested in it. */
    private final RaceRetries races;
    private final RaceRetries forceRaces;
    /** The context's clock when the current operation started: expiry is judged by it. */
    private long nowMillis;
    /** Pauses in a row while a node does not answer, since the membership was last read anew. */
    private int faultPauses;
    /** False while placing for a caller that may not wait ({@link #placeSteady}, {@link #headNow}). */
    private boolean waitsForJoiners = true;
    private final long timeoutNanos;
    /**
     * The key's replicas in placement order (indices into the client's nodes) before and after the membership change
     * in progress (the same when none runs), and those that serve in the phase this write runs in.
     */
    private final int[] placed;
    private final int[] placedAfter;
    private int placedCount;
    private int placedAfterCount;
    private final int[] serving;
    private int servingCount;
    /** The membership change phase the key was placed in: STEADY for a key the change does not move. */
    private int phase;
    /**
     * In the switch and handover phases: placed over the replicas after the change (its tail before is sealed), not
     * those before. A write placed that way, or in the cleanup phase, seals the tail before with each word it puts
     * there.
     */
    private boolean afterSide;
    /** From the switch phase to the cleanup phase: the key's last serving replica before the change; else -1. */
    private int tailBefore = -1;
    /** In the handover phase: some replica serves both before and after the change, so the key can be sealed. */
    private boolean sealable;
    /** In the switch and handover phases: the key's head after the change, read beside the head before it; else -1. */
    private int switchHead;
    /** A replica of the key declared down less than a view lease ago, which writes still wait for; else -1. */
    private int downSettling = -1;
    /**
     * The key's replicas written after the tail and never read or judged: those being refilled (joining), those
     * entering its placement while a change fills them, and those leaving it while the change cleans up.
     */
    private final int[] joining;
    private int joiningCount;
    private final long[] joinWords;
    private final long[] joinOffsets;
    /** Per joining replica, as the handover read it last: its committed slot, word and write id. */
    private final long[] joinSlots;
    private final long[] joinReadWords;
    private final long[] joinIds;
    /** Per serving replica, as read last: its committed slot, word and write id; and this write's word there. */
    private final long[] slots;
    private final long[] words;
    private final long[] writeIds;
    private final long[] newWords;
    private final long[] blockOffsets;
    private long switchStarted;
    /** The joiner's word when the last {@link #refill} found the key in place there. */
    private long refillJoinWord;
    /** The write id of this thread's last write that returned true. */
    private long lastWriteId;

    public ReplicaChain(final IndexProbe probe, final SlotWriter writer, final ReplicaReads reads,
        final HeapChunks chunks, final MembershipView membership, final long[] nodeIds, final KvClientContext context)
    {
        this.probe = probe;
        this.writer = writer;
        this.reads = reads;
        this.chunks = chunks;
        this.epochClock = context.epochClock();
        this.membership = membership;
        this.nodeIds = nodeIds;
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.races = new RaceRetries(context.maxRetries());
        this.forceRaces = new RaceRetries(context.maxRetries());
        this.timeoutNanos = context.timeoutMs() * 1_000_000L;
        final int r = membership.replicas();
        this.placed = new int[r];
        this.placedAfter = new int[r];
        this.serving = new int[r];
        this.joining = new int[2 * r];
        this.joinWords = new long[2 * r];
        this.joinOffsets = new long[2 * r];
        this.joinSlots = new long[2 * r];
        this.joinReadWords = new long[2 * r];
        this.joinIds = new long[2 * r];
        this.slots = new long[r];
        this.words = new long[r];
        this.writeIds = new long[r];
        this.newWords = new long[r];
        this.blockOffsets = new long[r];
    }

    /**
     * @return the node reads of the key go to: its first serving replica in placement order.
     * @throws KvException naming the key's replicas when none serves.
     */
    public long lastWriteId()
    {
        return lastWriteId;
    }

    public int head(final long hash, final byte[] key)
    {
        place(hash, key);
        return serving[0];
    }

    /**
     * As {@link #head}, for a caller that may not wait (a read carried by completions): no replica serving fails at
     * once, and the synchronous read waits for a joining one instead.
     */
    public int headNow(final long hash, final byte[] key)
    {
        waitsForJoiners = false;
        try
        {
            return head(hash, key);
        }
        finally
        {
            waitsForJoiners = true;
        }
    }

    /**
     * @return for the key last placed by {@link #head}: its head after the membership change, when the change is in
     * its switch or handover phase and that head is another node (a read then needs both heads to agree); else -1.
     */
    public int switchHead()
    {
        return switchHead;
    }

    /**
     * A read of the key's head failed: wait until the head answers or the membership says it is gone,
     * within the operation's deadline.
     *
     * @return true to read again (the head may have changed); false when the deadline has passed.
     */
    public boolean awaitHead(final long deadlineNanos)
    {
        if (nanoClock.nanoTime() - deadlineNanos > 0)
        {
            faultPauses = 0;
            return false;
        }
        if (membership.refresh())
        {
            faultPauses = 0;
        }
        else
        {
            pauseAfterFault();
        }
        return true;
    }

    /**
     * Wait a little before trying a node that did not answer again: a park from 10 us, doubling to 1 ms. The head comes
     * back, or the membership says it is gone, in milliseconds at best; a yield here kept every waiting thread on the
     * cores for the whole of a failover, which on a small host are the cores the recovering node and the driver need.
     */
    private void pauseAfterFault()
    {
        LockSupport.parkNanos(Math.min(FAULT_PAUSE_MAX_NANOS, FAULT_PAUSE_MIN_NANOS << Math.min(faultPauses++, 7)));
    }

    /**
     * @param value    the new value, or null to delete the key.
     * @param rule     {@link #PUT}, {@link #DELETE}, {@link #IF_VALUE} or {@link #IF_VERSION}.
     * @param expected for IF_VALUE: the value the key must hold, or null for "absent".
     * @param version  for IF_VERSION: the version it must hold.
     * @return true when written (a delete: when the key had a value).
     */
    public boolean write(final byte[] key, final MemorySegment value, final int rule, final byte[] expected,
        final Versioned version, final long expireAt)
    {
        try
        {
            return writeHeld(key, value, rule, expected, version, expireAt);
        }
        finally
        {
            // its nodes were told of it, or its notices are held for a flush: no mark waits for it any more
            chunks.writeDone();
        }
    }

    private boolean writeHeld(final byte[] key, final MemorySegment value, final int rule, final byte[] expected,
        final Versioned version, final long expireAt)
    {
        nowMillis = epochClock.time();
        final long deadline = nanoClock.nanoTime() + context.failoverWaitMs() * 1_000_000L;
        final long hash = KeyHash.hash(key);
        boolean handedOver = false;
        while (true)
        {
            final long epoch = membership.epoch();
            // no replica serving fails at once, naming them
            place(hash, key);
            if (downSettling >= 0)
            {
                awaitDownSettled(key, deadline);
                continue;
            }
            if (phase == Membership.HANDOVER && !handedOver)
            {
                if (!sealable)
                {
                    // no replica before or after the change serves: its writes wait for one to
                    awaitSwitched(key, epoch);
                    continue;
                }
                if (sealKey(key, hash, epoch, deadline) == NOT_SETTLED)
                {
                    continue;
                }
                handedOver = true;
            }
            if (handedOver && (phase == Membership.SWITCH || phase == Membership.HANDOVER))
            {
                place(hash, key, true, true);
            }
            // a delete that seals the tail before leaves a tombstone there: an empty slot would drop the seal
            final boolean tombstone = value == null && sealsTail();
            try
            {
                return writeOnce(key, hash, tombstone ? NO_VALUE : value, rule, expected, version,
                    tombstone ? KvBlockLayout.TOMBSTONE : expireAt, epoch, deadline);
            }
            catch (final OutcomeUnknown | WrongKindException | MemoryFullException ex)
            {
                // (a put or delete over a collection or a string in pieces is refused, not a replica's failure; a
                // node with no room for the blocks refuses it before anything is published, and at once)
                throw ex;
            }
            catch (final PlacementChanged ex)
            {
                // a replica was declared gone or came back since the blocks were written, or they were of an epoch
                // before the key's: write them again
            }
            catch (final HandedOver ex)
            {
                // the key was sealed since this switch writer found it not: over the placement after from now on
                handedOver = true;
            }
            catch (final KvException ex)
            {
                // a replica did not answer before this write won the tail, so it has taken no effect: once the
                // membership says the replica is gone the write goes on without it, within the deadline
                if (!awaitHead(deadline))
                {
                    throw ex;
                }
            }
        }
    }

    /**
     * A replica of the key was declared down less than a view lease ago by this client's clock: a client that read it
     * live before may still read it, as the key's head, should it only have paused and resume; so no write goes on
     * without it until that view has run out (client/README.md, "Replication").
     */
    private void awaitDownSettled(final byte[] key, final long deadline)
    {
        final int node = downSettling;
        final long settlesAt = membership.downSettlesAt(node);
        while (settlesAt != 0 && nanoClock.nanoTime() - settlesAt < 0 && membership.downSettlesAt(node) == settlesAt)
        {
            if (nanoClock.nanoTime() - deadline > 0)
            {
                throw new KvException("key " + KvErrors.describe(key) + " waits for " + membership.describe(node) +
                    ": writes go on without a memory node declared down only once every client's view listing it " +
                    "live has run out (" + context.membershipLeaseMs() + " ms, " +
                    KvClientConfiguration.MEMBERSHIP_LEASE_MS_PROP_NAME + "), and the failover wait of " +
                    context.failoverWaitMs() + " ms ended first");
            }
            membership.refreshIfDue();
            LockSupport.parkNanos(SWITCH_WAIT_PAUSE_NANOS);
        }
    }

    /**
     * The key moves between memory nodes, the change is handing it over, and none of its replicas before the change or
     * none after it serves: no write of it starts until the membership moves on (a replica back, the next phase).
     */
    private void awaitSwitched(final byte[] key, final long epoch)
    {
        final long deadline = switchDeadline();
        while (membership.epoch() == epoch)
        {
            if (nanoClock.nanoTime() - deadline > 0)
            {
                throw new KvException("key " + KvErrors.describe(key) + " is moving between memory nodes and its " +
                    "writes wait while none of its replicas before the change or none after it serves; the " +
                    "membership did not move on within " + (deadline - switchStarted) / 1_000_000 + " ms (" +
                    (servingCount > 0 ? membership.describe(serving[0]) : "no replica serves") + ")");
            }
            membership.refresh();
            LockSupport.parkNanos(SWITCH_WAIT_PAUSE_NANOS);
        }
    }

    /**
     * The handover of a moving key (client/README.md, "The handover"): its tail before is sealed once its replicas
     * before agree and every member entering its placement holds their write, so that its writes go on over its
     * replicas after the change. A write in flight over those before (a switch writer's) finishes within its time; one
     * that stands unfinished for longer lost its writer, and is rolled forward, or copied onto the members entering, as
     * the fill would.
     *
     * @return {@link #SEALED} when this call sealed it, {@link #IN_PLACE} when it was sealed, {@link #NOT_SETTLED}
     * when the membership moved on meanwhile (place the key again).
     * @throws KvException when it did not settle by the deadline.
     */
    private int sealKey(final byte[] key, final long hash, final long epoch, final long deadline)
    {
        final int fingerprint = KeyHash.fingerprint(hash);
        final int tail = servingCount - 1;
        long blockedWord = SlotWord.EMPTY;
        long blockedSince = nanoClock.nanoTime();
        // sealed already, as a key is once the driver's pass or a writer got there: one READ says so
        if (SlotWord.isSealed(probe.readKey(serving[tail], hash, key).word))
        {
            return IN_PLACE;
        }
        while (membership.epoch() == epoch)
        {
            // the members entering first: a write reaching one after this read changes the word a copy swaps from
            for (int j = 0; j < joiningCount; j++)
            {
                final KeyState joined = probe.readKey(joining[j], hash, key);
                joinSlots[j] = joined.slot;
                joinReadWords[j] = joined.word;
                joinIds[j] = joined.liveWriteId(nowMillis);
            }
            readServing(hash, key);
            if (SlotWord.isSealed(words[tail]))
            {
                return IN_PLACE;
            }
            final boolean settled = settled();
            if (settled && joinersAgree())
            {
                if (sealTail(hash, key, tail, fingerprint))
                {
                    return SEALED;
                }
                continue;
            }
            final long now = nanoClock.nanoTime();
            if (words[tail] != blockedWord)
            {
                blockedWord = words[tail];
                blockedSince = now;
            }
            else if (now - blockedSince > timeoutNanos)
            {
                // the tail's write has stood unfinished for longer than its writer may run: it died
                if (settled)
                {
                    copyOntoJoiners(hash, key, fingerprint);
                }
                else
                {
                    rollForward(hash, key, fingerprint);
                }
            }
            if (now - deadline > 0)
            {
                throw unsettled(key);
            }
            Thread.yield();
            membership.refreshIfDue();
        }
        return NOT_SETTLED;
    }

    /** Read the key at each serving replica, one after another from the tail to the head. */
    private void readServing(final long hash, final byte[] key)
    {
        for (int p = servingCount - 1; p >= 0; p--)
        {
            final KeyState replica = probe.readKey(serving[p], hash, key);
            slots[p] = replica.slot;
            words[p] = replica.word;
            writeIds[p] = replica.liveWriteId(nowMillis);
        }
    }

    /** @return true when every member entering the key's placement names the write its replicas before settled on. */
    private boolean joinersAgree()
    {
        for (int j = 0; j < joiningCount; j++)
        {
            if (joinIds[j] != writeIds[0])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Seal the tail before: a CAS from the word read to the same word sealed, or, where the key has no slot there, a
     * sealed tombstone put in by the node's insert rule.
     */
    private boolean sealTail(final long hash, final byte[] key, final int tail, final int fingerprint)
    {
        final int node = serving[tail];
        if (words[tail] != SlotWord.EMPTY)
        {
            return writer.swapAt(node, hash, key, slots[tail], words[tail], SlotWord.sealed(words[tail]));
        }
        final long offset = writeTombstone(node, key);
        if (writer.insertAt(node, hash, key, SlotWord.sealed(tombstoneWord(node, fingerprint, offset, key))))
        {
            chunks.persist(node, offset, KvBlockLayout.NO_WRITE);
            return true;
        }
        return false;
    }

    /** Copy the write the replicas before settled on onto each member entering that names another, from its word. */
    private void copyOntoJoiners(final long hash, final byte[] key, final int fingerprint)
    {
        final boolean absent = writeIds[0] == KvBlockLayout.NO_WRITE;
        final int length = absent ? 0 : probe.readWholeBlock(serving[0], words[0], key);
        final long expireAt = absent ? KvBlockLayout.NEVER : KvBlockLayout.expireAt(probe.block(), 0);
        for (int j = 0; j < joiningCount; j++)
        {
            if (joinIds[j] == writeIds[0])
            {
                continue;
            }
            final int node = joining[j];
            final long offset = absent ? SlotWord.blockOffset(joinReadWords[j]) :
                chunks.copyBlock(node, probe.block(), length);
            final long desired = absent ? SlotWord.EMPTY : SlotWord.committed(fingerprint, offset, length,
                expireAt != KvBlockLayout.NEVER, chunks.generationOf(node, offset));
            final boolean swapped = joinReadWords[j] != SlotWord.EMPTY ?
                writer.swapAt(node, hash, key, joinSlots[j], joinReadWords[j], desired) :
                writer.insertAt(node, hash, key, desired);
            if (swapped)
            {
                chunks.persist(node, offset, joinIds[j]);
            }
        }
    }

    /**
     * Seal a key the change moves, for the driver's pass in the handover phase ({@link #sealKey}), waiting out a write
     * in flight for at most twice an operation's time.
     *
     * @return {@link #SEALED}, {@link #IN_PLACE} (sealed before), {@link #NOT_PLACED} (the change does not move it),
     * or {@link #NOT_SETTLED} (a replica of it is not serving, or it did not settle in time: try it later).
     */
    int sealForChange(final byte[] key)
    {
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final long epoch = membership.epoch();
        place(hash, key, false);
        if (phase != Membership.HANDOVER)
        {
            return NOT_PLACED;
        }
        if (!sealable)
        {
            return NOT_SETTLED;
        }
        try
        {
            return sealKey(key, hash, epoch, nanoClock.nanoTime() + 2 * timeoutNanos);
        }
        catch (final KvException ex)
        {
            return NOT_SETTLED;
        }
    }

    /** @return true when the slot at {@code slot} of the node held {@code expected} and holds {@code desired} now. */
    boolean swapSlot(final int node, final long slot, final long expected, final long desired)
    {
        return writer.cas(node, slot, expected, desired) == expected;
    }

    /** @return true when the key's writes put sealed words on its tail before: in the cleanup phase, or sealed. */
    private boolean sealsTail()
    {
        return phase == Membership.CLEANUP || afterSide;
    }

    private boolean sealsAt(final int node)
    {
        return node == tailBefore && sealsTail();
    }

    /** @return the word sealed where this write seals it (an empty word stays empty: see {@link #write}). */
    private long sealedAt(final int node, final long word)
    {
        return word != SlotWord.EMPTY && sealsAt(node) ? SlotWord.sealed(word) : word;
    }

    /** @return the offset of a tombstone of the key written to this thread's chunk of the node. */
    private long writeTombstone(final int node, final byte[] key)
    {
        final int length = KvBlockLayout.blockLength(key.length, 0);
        return chunks.writeBlock(node, key, NO_VALUE, length, KvBlockLayout.TOMBSTONE, KvBlockLayout.drawWriteId(),
            chunks.writeEpoch());
    }

    /** @return the sealed word of the tombstone at {@code offset}. */
    private long tombstoneWord(final int node, final int fingerprint, final long offset, final byte[] key)
    {
        return SlotWord.sealed(SlotWord.committed(fingerprint, offset, KvBlockLayout.blockLength(key.length, 0), true,
            chunks.generationOf(node, offset)));
    }

    /** @return how long a write waits for the membership to move on: a phase's length and the failover wait. */
    private long switchDeadline()
    {
        switchStarted = nanoClock.nanoTime();
        return switchStarted + ((long)context.membershipLeaseMs() + context.timeoutMs() + context.failoverWaitMs()) *
            1_000_000L;
    }

    private boolean writeOnce(final byte[] key, final long hash, final MemorySegment value, final int rule,
        final byte[] expected, final Versioned version, final long expireAt, final long epoch, final long deadline)
    {
        final int fingerprint = KeyHash.fingerprint(hash);
        final long writeId = KvBlockLayout.drawWriteId();
        final long durableEpoch = chunks.writeEpoch();
        final int length = value == null ? 0 : KvBlockLayout.blockLength(key.length, (int)value.byteSize());
        if (value != null)
        {
            chunks.placeBlocks(serving, servingCount, key, value, length, expireAt, writeId, durableEpoch,
                blockOffsets);
        }
        for (int p = 0; p < servingCount; p++)
        {
            newWords[p] = sealedAt(serving[p], value == null ? SlotWord.EMPTY :
                SlotWord.committed(fingerprint, blockOffsets[p], length, expireAt != KvBlockLayout.NEVER,
                    chunks.generationOf(serving[p], blockOffsets[p])));
        }
        for (int j = 0; j < joiningCount; j++)
        {
            joinWords[j] = sealedAt(joining[j],
                joinerBlock(j, key, value, length, expireAt, writeId, durableEpoch, fingerprint));
        }
        long blockedWord = SlotWord.EMPTY;
        long blockedId = KvBlockLayout.NO_WRITE;
        long blockedSince = 0;
        final long settleDeadline = nanoClock.nanoTime() + 3 * timeoutNanos;
        // only races lost at the tail count against the retries: waiting for a write in flight ends by its
        // writer finishing or, past an operation's time, by rolling it forward
        races.start();
        // the blocks are written in the first round that reads the replicas' buckets; a version read just before
        // names the head's write by its word, so that round reads only that slot of the head
        int unwritten = value == null ? 0 : length;
        Versioned knownHead = rule == IF_VERSION ? version : null;
        while (races.left())
        {
            if (membership.epoch() != epoch)
            {
                throw PlacementChanged.INSTANCE;
            }
            final int tail = servingCount - 1;
            reads.read(serving, servingCount, hash, key, slots, words, writeIds, blockOffsets, unwritten, knownHead,
                nowMillis);
            unwritten = 0;
            knownHead = null;
            if (phase == Membership.SWITCH && !afterSide && SlotWord.isSealed(words[tail]))
            {
                // the change handed the key over since this writer read the membership (seals left by a change
                // before are cleared by this one's fill)
                throw HandedOver.INSTANCE;
            }
            if (!settled())
            {
                final long now = nanoClock.nanoTime();
                if (words[tail] != blockedWord || writeIds[tail] != blockedId)
                {
                    blockedWord = words[tail];
                    blockedId = writeIds[tail];
                    blockedSince = now;
                }
                else if (now - blockedSince > timeoutNanos)
                {
                    // the tail's write has stood unfinished for longer than its writer may run: it died
                    rollForward(hash, key, fingerprint);
                }
                if (now - settleDeadline > 0)
                {
                    // a write cannot stay in flight this long: its writer's time and a roll forward's are both past
                    throw unsettled(key);
                }
                Thread.yield();
                continue;
            }
            // a transaction's intent is replaced only by a write naming it exactly: by its version, or its bytes
            if (reads.intentAt(0) && rule != IF_VERSION && (rule != IF_VALUE || !holds(rule, key, expected, version)))
            {
                throw new IntentFound(key);
            }
            // a put or delete replaces only a string: a collection goes with its segments, in a transaction
            if ((rule == PUT || rule == DELETE) && writeIds[0] != KvBlockLayout.NO_WRITE &&
                reads.headKind() != ValueKind.STRING)
            {
                throw new WrongKindException(key, reads.headKind(), ValueKind.STRING);
            }
            if (!holds(rule, key, expected, version))
            {
                // refused on a head whose block has expired: perhaps a tombstone whose delete is not on disk yet (a
                // delete under durability sync), so the key's state goes to the head node's disk before the refusal
                // tells that the key is absent; refused on a pending value (a write not answered yet, its writer
                // perhaps dead): settled on every replica first, as a reader settles what it answers
                if (words[0] != SlotWord.EMPTY &&
                    (writeIds[0] == KvBlockLayout.NO_WRITE && chunks.pendingBlocks() || reads.headPending()) &&
                    !probe.settled(serving[0], SlotWord.blockOffset(words[0]), writeIds[0], key))
                {
                    continue;
                }
                return false;
            }
            if (value != null && reads.newestEpoch() > durableEpoch)
            {
                // a write is never of an epoch before the one it replaces (its blocks went out before it read that):
                // written again, at the client's epoch, which the read has raised
                throw PlacementChanged.INSTANCE;
            }
            final boolean won;
            try
            {
                won = publish(tail, hash, key, newWords[tail]);
            }
            catch (final KvException ex)
            {
                // the tail's CAS may have landed with its answer lost: starting over would apply the write twice
                throw outcomeUnknown(key, serving[tail], "its swap of the tail got no answer: " + ex.getMessage(), ex);
            }
            if (!won)
            {
                // another write won the tail since it was read
                races.lost();
                continue;
            }
            for (int j = 0; j < joiningCount; j++)
            {
                forceOntoJoiner(j, hash, key, writeId, deadline);
            }
            lastWriteId = writeId;
            if (acknowledgeAtTail)
            {
                return true;
            }
            chain(key, hash, writeId, servingCount - 2, nanoClock.nanoTime());
            persistWritten(key, value != null);
            return true;
        }
        throw races.exhausted(ruleName(rule), nodeIds[serving[0]], key);
    }

    /**
     * Finish a write carried by completions ({@link AsyncWrite}) that won its tail: swap the replicas it has not, from
     * {@code rest.from()} to the head, and tell the nodes as the client's durability asks, as {@link #write} would
     * have from there.
     *
     * @throws OutcomeUnknown when a replica fails it: the tail holds the write.
     */
    public void finish(final ChainRest rest)
    {
        // its blocks were written under the durability it began with: its nodes are told as that says
        chunks.durability(rest.durability());
        nowMillis = epochClock.time();
        servingCount = rest.nodes().length;
        System.arraycopy(rest.nodes(), 0, serving, 0, servingCount);
        System.arraycopy(rest.slots(), 0, slots, 0, servingCount);
        System.arraycopy(rest.words(), 0, words, 0, servingCount);
        System.arraycopy(rest.replaced(), 0, writeIds, 0, servingCount);
        System.arraycopy(rest.newWords(), 0, newWords, 0, servingCount);
        System.arraycopy(rest.offsets(), 0, blockOffsets, 0, servingCount);
        chain(rest.key(), rest.hash(), rest.writeId(), rest.from(), rest.wonNanos());
        persistWritten(rest.key(), rest.written());
    }

    /**
     * For a write carried by completions: the key's serving replicas, when its placement is steady (no membership
     * change moves it, none of its replicas joining or declared down just now).
     *
     * @param nodesOut the key's serving replicas in placement order.
     * @return how many, or 0 when the write needs more than that (the synchronous write waits or forces).
     * @throws KvException naming the key's replicas when none serves.
     */
    public int placeSteady(final long hash, final byte[] key, final int[] nodesOut)
    {
        // called where nothing may wait (a thread that carries completions): the synchronous write waits instead
        waitsForJoiners = false;
        try
        {
            place(hash, key);
        }
        finally
        {
            waitsForJoiners = true;
        }
        if (downSettling >= 0 || phase != Membership.STEADY || joiningCount != 0)
        {
            return 0;
        }
        System.arraycopy(serving, 0, nodesOut, 0, servingCount);
        return servingCount;
    }

    private void persistWritten(final byte[] key, final boolean written)
    {
        try
        {
            persist(written);
        }
        catch (final KvException ex)
        {
            // the write holds every replica: tried again as a new one, a compare-and-set would find its own value
            // there and answer that it took no effect
            throw new OutcomeUnknown("write of key " + KvErrors.describe(key) + " is on its replicas but was " +
                "not confirmed on disk: " + ex.getMessage() + "; it has taken effect, durable or not", ex);
        }
    }

    /**
     * This write won the tail: swap the others from {@code from} (the tail's predecessor, or where a write carried
     * by completions stopped) to the head. From here on a failure cannot be undone (the tail holds the write, and a
     * later writer rolls it forward), so it is reported as an outcome unknown, never as a write that took no effect.
     */
    private void chain(final byte[] key, final long hash, final long writeId, final int from, final long wonAt)
    {
        for (int p = from; p >= 0; p--)
        {
            for (int attempt = 0; ; attempt++)
            {
                if (nanoClock.nanoTime() - wonAt > timeoutNanos)
                {
                    // past this point another writer may roll the tail's write forward: post nothing more
                    throw outcomeUnknown(key, serving[p], "it ran past its deadline after winning the tail", null);
                }
                final long named;
                final long slot;
                final long word;
                try
                {
                    if (publish(p, hash, key, newWords[p]))
                    {
                        break;
                    }
                    final KeyState replica = probe.readKey(serving[p], hash, key);
                    named = replica.liveWriteId(nowMillis);
                    slot = replica.slot;
                    word = replica.word;
                }
                catch (final KvException ex)
                {
                    throw outcomeUnknown(key, serving[p], ex.getMessage(), ex);
                }
                if (named == writeId)
                {
                    break;
                }
                if (named != KvBlockLayout.NO_WRITE && named != writeIds[p] || attempt == CHAIN_ATTEMPTS)
                {
                    throw outcomeUnknown(key, serving[p], "that replica changed under the chain", null);
                }
                // no writer changes a replica while this one holds the tail, but the node's scan empties a slot whose
                // value expired (the replica holds no value of the key), and a cleaner moves a block whole (it holds
                // the write read, under another word): the write goes over what is there
                slots[p] = slot;
                words[p] = word;
                writeIds[p] = named;
            }
        }
    }

    /**
     * Write this write's block to a joining replica: a joiner that does not answer holds the write up, before it
     * won the tail, as a serving replica does, until it answers or is declared down.
     *
     * @return the word naming it there, or EMPTY for a delete.
     */
    private long joinerBlock(final int j, final byte[] key, final MemorySegment value, final int length,
        final long expireAt, final long writeId, final long durableEpoch, final int fingerprint)
    {
        if (value == null)
        {
            return SlotWord.EMPTY;
        }
        joinOffsets[j] = chunks.writeBlock(joining[j], key, value, length, expireAt, writeId, durableEpoch);
        return SlotWord.committed(fingerprint, joinOffsets[j], length, expireAt != KvBlockLayout.NEVER,
            chunks.generationOf(joining[j], joinOffsets[j]));
    }

    /**
     * Put this write on a joining replica, whatever it holds: this writer holds the tail, so anything else there is
     * older (a copy of an earlier settled write, or a key from its disk). A copier swaps from the word it read, so
     * it never puts an older write back over this one. A joiner that does not answer is waited for, within the
     * failover wait, until it answers or the membership no longer lists it as joining (it was declared down, and
     * comes back as another incarnation, refilled anew): a joiner made live must hold every write.
     */
    private void forceOntoJoiner(final int j, final long hash, final byte[] key, final long writeId,
        final long deadlineNanos)
    {
        final int node = joining[j];
        while (true)
        {
            try
            {
                if (forceOnce(j, node, hash, key, writeId))
                {
                    return;
                }
                throw outcomeUnknown(key, node, "it lost " + context.maxRetries() + " races on joining memory node " +
                    nodeIds[node], null);
            }
            catch (final OutcomeUnknown ex)
            {
                throw ex;
            }
            catch (final KvException ex)
            {
                membership.refresh();
                final int state = membership.state(node);
                if (state == Membership.DOWN || state == 0)
                {
                    // declared gone (it comes back as another incarnation, refilled anew), or no member any more
                    return;
                }
                if (nanoClock.nanoTime() - deadlineNanos > 0)
                {
                    throw outcomeUnknown(key, node, "joining memory node " + nodeIds[node] + " did not answer", ex);
                }
                pauseAfterFault();
            }
        }
    }

    private boolean forceOnce(final int j, final int node, final long hash, final byte[] key, final long writeId)
    {
        for (forceRaces.start(); forceRaces.another(); )
        {
            if (servingCount == 1)
            {
                // one serving replica is settled as soon as its tail is won, so a newer writer may win it while this
                // one still forces: forced only while the tail names this write, a late force never puts the older
                // write back over the newer one (with two or more, the newer writer waits for this chain to end)
                // likewise once the tail is sealed: past the seal the replicas after the change decide the key's
                // writes, and the member forced here is one of them (client/README.md, "The handover")
                final KeyState tail = probe.readKey(serving[0], hash, key);
                if (tail.liveWriteId(nowMillis) != writeId ||
                    (phase == Membership.SWITCH && !afterSide && SlotWord.isSealed(tail.word)))
                {
                    return true;
                }
            }
            final KeyState replica = probe.readKey(node, hash, key);
            final long slot = replica.slot;
            final long word = replica.word;
            if (replica.liveWriteId(nowMillis) == writeId || (joinWords[j] == SlotWord.EMPTY && word == SlotWord.EMPTY))
            {
                return true;
            }
            final boolean done = word != SlotWord.EMPTY ?
                writer.swapAt(node, hash, key, slot, word, joinWords[j]) :
                writer.insertAt(node, hash, key, joinWords[j]);
            if (done)
            {
                if (word != SlotWord.EMPTY || joinWords[j] != SlotWord.EMPTY)
                {
                    chunks.persist(node, joinWords[j] == SlotWord.EMPTY ? SlotWord.blockOffset(word) : joinOffsets[j],
                        replica.liveWriteId(nowMillis));
                }
                return true;
            }
        }
        return false;
    }

    /**
     * Bring one key's copy on a joining replica up to the write its serving replicas have settled on: a
     * copy of the head's block, swapped in from the word read on the joiner before the serving replicas
     * were read, so that a writer's write that reached the joiner since is never replaced. Checked
     * again after each swap, so a key written and deleted between the reads is not left behind.
     *
     * @return {@link #IN_PLACE}, {@link #REFILLED}, {@link #NOT_PLACED} (the joiner is not one of its
     * replicas) or {@link #NOT_SETTLED} (a write in flight, or no serving replica: try it later).
     */
    int refill(final byte[] key, final int joiner)
    {
        nowMillis = epochClock.time();
        final long hash = KeyHash.hash(key);
        final int fingerprint = KeyHash.fingerprint(hash);
        place(hash, key, false);
        if (!isJoining(joiner) || phase == Membership.HANDOVER)
        {
            // in the handover a moving key is sealed, never copied: writes after the change may be on the joiner
            return NOT_PLACED;
        }
        if (servingCount == 0)
        {
            // every copy went down (client/README.md, "Every copy down at once"): the copy of the replica that served
            // last is the one to settle on, once it is back with its memory; no writer runs on the key meanwhile
            final int source = phase == Membership.STEADY ?
                membership.placement().lastToServe(placed, placedCount) : -1;
            if (source < 0)
            {
                return NOT_SETTLED;
            }
            serving[servingCount++] = source;
        }
        boolean changed = false;
        for (int attempt = 0; attempt < REFILL_ATTEMPTS; attempt++)
        {
            final KeyState joined = probe.readKey(joiner, hash, key);
            final long joinSlot = joined.slot;
            final long joinWord = joined.word;
            final long joinId = joined.liveWriteId(nowMillis);
            readServing(hash, key);
            if (!settled())
            {
                Thread.yield();
                continue;
            }
            if (joinId == writeIds[0])
            {
                refillJoinWord = joinWord;
                return changed ? REFILLED : IN_PLACE;
            }
            final long desired;
            final long offset;
            if (writeIds[0] == KvBlockLayout.NO_WRITE)
            {
                desired = SlotWord.EMPTY;
                offset = SlotWord.blockOffset(joinWord);
            }
            else
            {
                final int length = probe.readWholeBlock(serving[0], words[0], key);
                if (KvBlockLayout.isPending(probe.block(), 0))
                {
                    // a write not answered yet, perhaps of a writer that died: put on every replica's disk that
                    // holds it (the head's last) before the joiner has it, as a reader would, so that the copy is
                    // never the only settled one (RecoveryModelTest's REFILL_COPIES_PENDING lost it)
                    if (!probe.settled(serving[0], SlotWord.blockOffset(words[0]), writeIds[0], key))
                    {
                        continue;
                    }
                    // the joiner is read only once its refill ended with its copies on its disk (a barrier)
                    KvBlockLayout.settle(probe.block(), 0);
                }
                final long expireAt = KvBlockLayout.expireAt(probe.block(), 0);
                offset = chunks.copyBlock(joiner, probe.block(), length);
                desired = SlotWord.committed(fingerprint, offset, length, expireAt != KvBlockLayout.NEVER,
                    chunks.generationOf(joiner, offset));
            }
            final boolean swapped = joinWord != SlotWord.EMPTY ?
                writer.swapAt(joiner, hash, key, joinSlot, joinWord, desired) :
                writer.insertAt(joiner, hash, key, desired);
            if (swapped)
            {
                chunks.persist(joiner, offset, joinId);
                changed = true;
            }
        }
        return NOT_SETTLED;
    }

    /**
     * {@link #refillPlacement(long, byte[], int, int[], int)} without the key, which only errors name and a refill's
     * placement never throws: for a sweep that holds its keys in one array.
     */
    int refillPlacement(final long hash, final int joiner, final int[] servingOut, final int at)
    {
        return refillPlacement(hash, null, joiner, servingOut, at);
    }

    /**
     * Place a key as {@link #refill} places it, for a refill in a batch ({@link RefillBatch}).
     *
     * @param servingOut its serving replicas in placement order, put from {@code at} on.
     * @return how many serve; -1 when the joiner is not one of its replicas being refilled ({@link #NOT_PLACED}); 0
     * when none serves (the single-key refill looks for the one that served last).
     */
    int refillPlacement(final long hash, final byte[] key, final int joiner, final int[] servingOut, final int at)
    {
        place(hash, key, false);
        if (!isJoining(joiner) || phase == Membership.HANDOVER)
        {
            return -1;
        }
        System.arraycopy(serving, 0, servingOut, at, servingCount);
        return servingCount;
    }

    /** @return the joiner's word when the last {@link #refill} found the key in place there (it may be empty). */
    long joinWordInPlace()
    {
        return refillJoinWord;
    }

    /**
     * The serving replicas' words the last {@link #refill} that found the key in place read.
     *
     * @return how many, their nodes and words put in the arrays (at least the replica count long).
     */
    int servingWordsInPlace(final int[] nodesOut, final long[] wordsOut)
    {
        System.arraycopy(serving, 0, nodesOut, 0, servingCount);
        System.arraycopy(words, 0, wordsOut, 0, servingCount);
        return servingCount;
    }

    private boolean isJoining(final int node)
    {
        for (int j = 0; j < joiningCount; j++)
        {
            if (joining[j] == node)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Tell each replica's node which block changed, as the client's durability asks: the head's last. Under sync each
     * node settles its block once the key is on its disk, and readers read the head: settled there last, a value
     * readers see is on every serving replica's disk, so whichever of them serves last when every copy is lost brings
     * it back (head first, a write whose writer or tail died between the two PERSISTs was seen settled on the head
     * and lost with it: `./dkv check --nemesis kill-all-memory` found it, RecoveryModelTest shows it).
     */
    private void persist(final boolean written)
    {
        for (int p = servingCount - 1; p >= 0; p--)
        {
            if (written)
            {
                chunks.persist(serving[p], blockOffsets[p], writeIds[p]);
            }
            else if (words[p] != SlotWord.EMPTY)
            {
                // a delete names the block it emptied, and that block's write as the one it replaced
                chunks.persist(serving[p], SlotWord.blockOffset(words[p]), writeIds[p]);
            }
        }
    }

    /** @return true when every serving replica names the same write (or none has a value). */
    private boolean settled()
    {
        for (int p = 1; p < servingCount; p++)
        {
            if (writeIds[p] != writeIds[0])
            {
                return false;
            }
        }
        return true;
    }

    /** Judge the write's rule against the settled state, whose value the head holds. */
    private boolean holds(final int rule, final byte[] key, final byte[] expected, final Versioned version)
    {
        final boolean present = writeIds[0] != KvBlockLayout.NO_WRITE;
        return switch (rule)
        {
            case PUT -> true;
            case DELETE -> present;
            case IF_VALUE -> expected == null ? !present :
                present && probe.readWholeBlock(serving[0], words[0], key) > 0 &&
                    KvBlockLayout.hasValue(probe.block(), 0, expected);
            case IF_VERSION -> present && writeIds[0] == version.writeId;
            default -> throw new IllegalArgumentException("no such write rule: " + rule);
        };
    }

    /** Swap one replica from the word read to {@code desired} (an insert where it had none). */
    private boolean publish(final int p, final long hash, final byte[] key, final long desired)
    {
        final int node = serving[p];
        if (words[p] != SlotWord.EMPTY)
        {
            return writer.swapAt(node, hash, key, slots[p], words[p], desired);
        }
        return desired == SlotWord.EMPTY || writer.insertAt(node, hash, key, desired);
    }

    /**
     * Bring every serving replica to the write the tail names (or to no value), from the tail's
     * predecessor to the head, each by a CAS from the word read: a copy of the tail's block, with the
     * same write id, on each replica that names another write.
     */
    private void rollForward(final long hash, final byte[] key, final int fingerprint)
    {
        final int tail = servingCount - 1;
        // the tail read again, after the others: still naming the write, no write won it since, so none reached the
        // others after they were read (READs landing in any order could have read a head a newer write reached)
        if (probe.readKey(serving[tail], hash, key).word != words[tail])
        {
            return;
        }
        final boolean absent = writeIds[tail] == KvBlockLayout.NO_WRITE;
        final int length = absent ? 0 : probe.readWholeBlock(serving[tail], words[tail], key);
        final long expireAt = absent ? KvBlockLayout.NEVER : KvBlockLayout.expireAt(probe.block(), 0);
        for (int p = tail - 1; p >= 0; p--)
        {
            if (writeIds[p] == writeIds[tail])
            {
                continue;
            }
            // the copy's word, not this write's: newWords still holds that for the chain that follows; a tail before
            // that keeps its seal gets a tombstone where the key has no value
            final boolean tombstone = absent && sealsAt(serving[p]);
            final long offset = tombstone ? writeTombstone(serving[p], key) :
                absent ? 0 : chunks.copyBlock(serving[p], probe.block(), length);
            final long copied = tombstone ? tombstoneWord(serving[p], fingerprint, offset, key) : absent ?
                SlotWord.EMPTY : sealedAt(serving[p], SlotWord.committed(fingerprint, offset, length,
                expireAt != KvBlockLayout.NEVER, chunks.generationOf(serving[p], offset)));
            if (!publish(p, hash, key, copied))
            {
                // changed since it was read: the next round reads it again
                return;
            }
            chunks.persist(serving[p], absent && !tombstone ? SlotWord.blockOffset(words[p]) : offset, writeIds[p]);
        }
    }

    /**
     * The key's replicas in placement order, and those that serve now.
     *
     * @throws KvException naming the replicas when none serves.
     */
    private void place(final long hash, final byte[] key)
    {
        place(hash, key, true, false);
    }

    private void place(final long hash, final byte[] key, final boolean requireServing)
    {
        place(hash, key, requireServing, false);
    }

    /**
     * @param requireServing throw when no replica serves; a refill instead looks for the one that served last.
     * @param sealed         in the switch or handover phase: place the key over its replicas after the change, its tail
     *                       before sealed, as the cleanup phase places it.
     */
    private void place(final long hash, final byte[] key, final boolean requireServing, final boolean sealed)
    {
        long waitDeadline = 0;
        while (!placeOnce(hash, key, requireServing, sealed))
        {
            // no replica serves and one is joining: a node back from a restart, whose refill makes it live within
            // moments (every copy restarted at once, say); the operation waits for it within the failover wait, as
            // for a head that does not answer, rather than failing at once
            final long now = nanoClock.nanoTime();
            if (waitDeadline == 0)
            {
                waitDeadline = now + context.failoverWaitMs() * 1_000_000L;
            }
            if (now - waitDeadline > 0)
            {
                throw noServingReplica(key, " (waited " + context.failoverWaitMs() + " ms for a joining replica's " +
                    "refill to end)");
            }
            membership.refresh();
            LockSupport.parkNanos(SWITCH_WAIT_PAUSE_NANOS);
        }
    }

    /** @return false when no replica serves and one joins, and the caller may wait for it: place again soon. */
    private boolean placeOnce(final long hash, final byte[] key, final boolean requireServing, final boolean sealed)
    {
        membership.refreshIfDue();
        final MembershipView.Placement placement = membership.placement();
        final int r = placed.length;
        placedCount = placement.before(hash, r, placed);
        placedAfterCount = placement.after(hash, r, placedAfter);
        phase = placement.changing() && !samePlacement() ? placement.phase : Membership.STEADY;
        afterSide = (phase == Membership.SWITCH || phase == Membership.HANDOVER) && sealed;
        switchHead = -1;
        servingCount = 0;
        joiningCount = 0;
        tailBefore = -1;
        sealable = false;
        if (phase == Membership.SWITCH || phase == Membership.HANDOVER || phase == Membership.CLEANUP)
        {
            for (int p = 0; p < placedCount; p++)
            {
                tailBefore = placement.serves(placed[p]) ? placed[p] : tailBefore;
            }
            for (int p = 0; p < placedAfterCount; p++)
            {
                sealable |= tailBefore >= 0 && placement.serves(placedAfter[p]);
            }
        }
        // a key the change does not move is placed as in a steady membership; one it moves is served by its replicas
        // before the change until its tail before is sealed or the change cleans up, and by those after it from then
        final boolean after = phase == Membership.CLEANUP || afterSide;
        final int[] primary = after ? placedAfter : placed;
        final int primaryCount = after ? placedAfterCount : placedCount;
        downSettling = -1;
        boolean primaryJoining = false;
        for (int p = 0; p < primaryCount; p++)
        {
            // the clock is read only for a replica declared down: not on every operation
            final long settlesAt = membership.downSettlesAt(primary[p]);
            if (settlesAt != 0 && nanoClock.nanoTime() - settlesAt < 0 &&
                placement.state(primary[p]) == Membership.DOWN)
            {
                downSettling = primary[p];
            }
            if (placement.serves(primary[p]))
            {
                serving[servingCount++] = primary[p];
            }
            else if (placement.state(primary[p]) == Membership.JOINING)
            {
                joining[joiningCount++] = primary[p];
                primaryJoining = true;
            }
        }
        if (after)
        {
            forceOthers(placement, placed, placedCount, placedAfter, placedAfterCount);
        }
        else if (phase == Membership.FILL || phase == Membership.SWITCH || phase == Membership.HANDOVER)
        {
            forceOthers(placement, placedAfter, placedAfterCount, placed, placedCount);
        }
        if (servingCount == 0 && !requireServing)
        {
            return true;
        }
        if (servingCount == 0)
        {
            if (waitsForJoiners && primaryJoining)
            {
                return false;
            }
            throw noServingReplica(key, "");
        }
        if ((phase == Membership.SWITCH || phase == Membership.HANDOVER) && !afterSide)
        {
            for (int p = 0; p < placedAfterCount; p++)
            {
                if (placement.serves(placedAfter[p]))
                {
                    switchHead = placedAfter[p] == serving[0] ? -1 : placedAfter[p];
                    break;
                }
            }
        }
        return true;
    }

    /** @return the error of an operation on a key none of whose replicas serves, naming each as last placed. */
    private KvException noServingReplica(final byte[] key, final String waited)
    {
        final MembershipView.Placement placement = membership.placement();
        final boolean after = phase == Membership.CLEANUP || afterSide;
        final int[] primary = after ? placedAfter : placed;
        final int primaryCount = after ? placedAfterCount : placedCount;
        final StringBuilder text = new StringBuilder("key ").append(KvErrors.describe(key))
            .append(" has no serving replica: ");
        for (int p = 0; p < primaryCount; p++)
        {
            text.append(p == 0 ? "" : ", ").append(placement.describe(primary[p]));
        }
        return new KvException(text.append(waited).toString());
    }

    /** The members of one placement that the other lacks, and are up: written after the tail, never read. */
    private void forceOthers(final MembershipView.Placement placement, final int[] others, final int otherCount,
        final int[] primary, final int primaryCount)
    {
        for (int p = 0; p < otherCount; p++)
        {
            final int node = others[p];
            final int state = placement.state(node);
            if (!contains(primary, primaryCount, node) && state != Membership.DOWN && state != 0)
            {
                joining[joiningCount++] = node;
            }
        }
    }

    private boolean samePlacement()
    {
        if (placedCount != placedAfterCount)
        {
            return false;
        }
        for (int p = 0; p < placedCount; p++)
        {
            if (placed[p] != placedAfter[p])
            {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(final int[] nodes, final int count, final int node)
    {
        for (int p = 0; p < count; p++)
        {
            if (nodes[p] == node)
            {
                return true;
            }
        }
        return false;
    }

    private KvException unsettled(final byte[] key)
    {
        final StringBuilder text = new StringBuilder("the replicas of key ").append(KvErrors.describe(key))
            .append(" did not settle within ").append(3 * timeoutNanos / 1_000_000).append(" ms:");
        for (int p = 0; p < servingCount; p++)
        {
            text.append(p == 0 ? " " : ", ").append("memory node ").append(nodeIds[serving[p]]).append(" names write ")
                .append(Long.toHexString(writeIds[p]));
        }
        return new KvException(text.toString());
    }

    private OutcomeUnknown outcomeUnknown(final byte[] key, final int node, final String why,
        final KvException cause)
    {
        return new OutcomeUnknown("write of key " + KvErrors.describe(key) + " won its tail but not memory node " +
            nodeIds[node] + ": " + why + "; it may or may not take effect", cause);
    }

    /** A write that won its tail and then failed: it may yet take effect, so it is never retried as a new one. */
    public static final class OutcomeUnknown extends KvException
    {
        public OutcomeUnknown(final String message, final KvException cause)
        {
            super(message, cause);
        }
    }

    /** A switch writer over the placement before found the key sealed: it starts over, over the placement after. */
    private static final class HandedOver extends RuntimeException
    {
        private static final HandedOver INSTANCE = new HandedOver();

        private HandedOver()
        {
            super("handed over", null, false, false);
        }
    }

    /** The membership moved while a write ran: it starts over with blocks on the replicas that serve now. */
    private static final class PlacementChanged extends RuntimeException
    {
        private static final PlacementChanged INSTANCE = new PlacementChanged();

        private PlacementChanged()
        {
            super("placement changed", null, false, false);
        }
    }

    private static String ruleName(final int rule)
    {
        return switch (rule)
        {
            case PUT -> "put";
            case DELETE -> "delete";
            case IF_VALUE -> "compareAndSet";
            default -> "compareAndSetVersion";
        };
    }
}
