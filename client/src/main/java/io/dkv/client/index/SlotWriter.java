package io.dkv.client.index;

import io.dkv.client.KvClientContext;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.RaceRetries;
import io.dkv.client.node.NodeLinks;
import io.dkv.format.IndexLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.SlotWord;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

/**
 * Changes a key's slot at one node by CAS: swaps its committed slot from one word to another, inserts it where it has
 * none (a tentative word, a second read, the commit: {@link IndexDecisions#insertVerdict}), withdraws a tentative
 * word, and asks the node to split a subtable whose candidates are full. Reads go through the {@link IndexProbe}.
 */
public final class SlotWriter
{
    /** {@link #tryInsert}: committed. */
    public static final int INSERTED = 0;
    /** {@link #tryInsert}: withdrawn (a split, a racing insert, a committed slot that appeared): read again. */
    static final int LOST = 1;

    private final NodeLinks links;
    private final IndexProbe probe;
    private final KvClientContext context;
    private final NanoClock nanoClock;
    private final RaceRetries races;
    /** The tentative slot of another insert of the key this thread's insert waits behind, and since when. */
    private long blockedBy;
    private long blockedSince;

    public SlotWriter(final NodeLinks links, final IndexProbe probe, final KvClientContext context)
    {
        this.links = links;
        this.probe = probe;
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.races = new RaceRetries(context.maxRetries());
    }

    /** @return the word the slot held: {@code expected} when the swap took place. */
    public long cas(final int node, final long slot, final long expected, final long desired)
    {
        try
        {
            return links.connection(node).cas(links.view(node).index, slot, expected, desired);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
    }

    /**
     * Swap the key's committed slot at a node from one word to another. A failed CAS is looked into once more, as a
     * split may have moved the slot, word unchanged, to the subtable's other half.
     *
     * @return true when swapped.
     */
    public boolean swapAt(final int node, final long hash, final byte[] key, final long slot, final long expected,
        final long desired)
    {
        if (cas(links.use(node), slot, expected, desired) == expected)
        {
            return true;
        }
        probe.readCandidates(node, hash);
        final KeyState state = probe.scan(node, hash, key, 0);
        return state.committed() && state.word == expected && state.slot != slot &&
            cas(node, state.slot, expected, desired) == expected;
    }

    /**
     * Insert the key at a node where it has no committed slot, by the node's insert rule.
     *
     * @return true when inserted; false when a committed slot of the key is there.
     */
    public boolean insertAt(final int node, final long hash, final byte[] key, final long committedWord)
    {
        final long tentativeWord = SlotWord.tentative(committedWord);
        startInsert();
        for (races.start(); races.another(); )
        {
            probe.readCandidates(links.use(node), hash);
            if (probe.scan(node, hash, key, tentativeWord).committed())
            {
                return false;
            }
            if (tryInsert(node, hash, key, committedWord, tentativeWord) == INSERTED)
            {
                return true;
            }
        }
        throw races.exhausted("insert", links.nodeId(node), key);
    }

    /** An insert begins: it waits behind no other insert of the key yet. */
    public void startInsert()
    {
        blockedBy = 0;
    }

    /**
     * One attempt to insert the key at a node whose candidates were just read and scanned, with no committed slot of
     * the key among them: a CAS of an empty slot to a tentative word (invisible to readers), a second read, and a CAS
     * committing it if no committed slot of the key appeared and this tentative slot comes first in address order
     * (later ones are cleared first).
     *
     * @return {@link #INSERTED}, or {@link #LOST}: the attempt was withdrawn (a split, a racing insert or a committed
     * slot that appeared) and the caller reads the candidates again.
     */
    public int tryInsert(final int node, final long hash, final byte[] key, final long committedWord,
        final long tentativeWord)
    {
        final int empty = IndexDecisions.firstEmpty(probe.words(), probe.slotCount());
        if (empty < 0)
        {
            split(node, hash, key);
            return LOST;
        }
        final long mySlot = probe.slotOffsets()[empty];
        if (cas(node, mySlot, SlotWord.EMPTY, tentativeWord) != SlotWord.EMPTY)
        {
            return LOST;
        }
        probe.readCandidates(node, hash);
        final KeyState state = probe.scan(node, hash, key, tentativeWord);
        final long[] words = probe.words();
        final long[] slotOffsets = probe.slotOffsets();
        final int mine = IndexDecisions.indexOf(slotOffsets, probe.slotCount(), mySlot);
        final int verdict = IndexDecisions.insertVerdict(mine, mine < 0 ? SlotWord.EMPTY : words[mine], tentativeWord,
            state.committed(), state.tentatives);
        if (verdict == IndexDecisions.INSERT_CLEARED)
        {
            return LOST;
        }
        if (verdict == IndexDecisions.INSERT_MOVED || verdict == IndexDecisions.INSERT_COMMITTED_SEEN)
        {
            // a split moved the key's buckets elsewhere (start there), or a committed slot of the key appeared
            withdraw(node, mySlot, tentativeWord);
            return LOST;
        }
        if (verdict == IndexDecisions.INSERT_YIELD)
        {
            final int first = IndexDecisions.first(state.tentatives);
            final long now = nanoClock.nanoTime();
            if (words[first] != blockedBy)
            {
                blockedBy = words[first];
                blockedSince = now;
            }
            else if (now - blockedSince > context.timeoutMs() * 1_000_000L)
            {
                // the same tentative slot has stood for longer than an operation may last: its writer died
                cas(node, slotOffsets[first], blockedBy, SlotWord.EMPTY);
            }
            withdraw(node, mySlot, tentativeWord);
            Thread.onSpinWait();
            return LOST;
        }
        if (clearLaterTentatives(node, state.tentatives, mine) &&
            cas(node, mySlot, tentativeWord, committedWord) == tentativeWord)
        {
            return INSERTED;
        }
        withdraw(node, mySlot, tentativeWord);
        return LOST;
    }

    private boolean clearLaterTentatives(final int node, final int tentatives, final int mine)
    {
        final long[] words = probe.words();
        final long[] slotOffsets = probe.slotOffsets();
        int later = IndexDecisions.later(tentatives, mine);
        while (later != 0)
        {
            final int i = Integer.numberOfTrailingZeros(later);
            later &= later - 1;
            final long before = cas(node, slotOffsets[i], words[i], SlotWord.EMPTY);
            if (before != words[i] && before != SlotWord.EMPTY)
            {
                // it was committed meanwhile, or the slot was taken again: start over
                return false;
            }
        }
        return true;
    }

    private void withdraw(final int node, final long slot, final long tentativeWord)
    {
        cas(node, slot, tentativeWord, SlotWord.EMPTY);
    }

    /**
     * Both candidate buckets of the key are full: ask the node to split their subtable, and read its directory again.
     *
     * @throws KvException when the subtable cannot split any more.
     */
    private void split(final int node, final long hash, final byte[] key)
    {
        final long subtable = links.view(node).subtableFor(hash);
        // with the depth this thread saw: when another split came first, the node only says so
        final int status = links.request(node, MemoryNodeProtocol.SPLIT, links.view(node).localDepthFor(hash),
            subtable, true, "a subtable split");
        if (status == MemoryNodeProtocol.FULL)
        {
            throw new KvException(String.format("memory node %d has no free slot in either candidate bucket of key " +
                "%s (%d slots each) and its index cannot split further (it is at its largest directory): give the " +
                "node more index groups or a deeper directory", links.nodeId(node), KvErrors.describe(key),
                IndexLayout.SLOTS_PER_COMBINED_BUCKET));
        }
        if (status != MemoryNodeProtocol.OK)
        {
            throw new KvException("memory node " + links.nodeId(node) + " refused to split a subtable (status " +
                status + ")");
        }
        links.readDirectoryAgain(node);
    }
}
