package io.dkv.verbs.tcp;

import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;

/**
 * What a responder remembers about the DC initiators that send over one link, and only while it
 * matters: an initiator whose request failed (its later frames are dropped until it resets, as the
 * requester flushed them) and one told receiver-not-ready (frames other than the awaited
 * retransmission are dropped). An initiator whose requests succeed leaves nothing behind, whatever
 * numbers a peer makes up; one link holds at most a bounded number of entries, and a peer that
 * needs more is cut off rather than given memory. Engine thread only.
 */
final class DcSourceStates
{
    private static final int NONE = -1;

    private final Int2IntHashMap erroredIncarnation = new Int2IntHashMap(NONE);
    private final Long2LongHashMap awaited = new Long2LongHashMap(NONE);
    private final TcpNicEngine engine;
    private final int maxEntries;

    DcSourceStates(final TcpNicEngine engine, final int maxEntries)
    {
        this.engine = engine;
        this.maxEntries = maxEntries;
    }

    /**
     * Whether a request from {@code srcQpn} may execute, forgetting what an older incarnation of the
     * initiator left.
     *
     * @return true to execute it, false to drop it unanswered.
     */
    boolean admit(final int srcQpn, final int incarnation, final int psn)
    {
        final int errored = erroredIncarnation.get(srcQpn);
        if (errored != NONE)
        {
            if (errored == incarnation)
            {
                return false;
            }
            erroredIncarnation.remove(srcQpn);
            engine.onDcSourceStates(-1);
        }
        final long awaitedPsn = awaited.get(srcQpn);
        if (awaitedPsn != NONE)
        {
            if ((int)(awaitedPsn >>> 32) == incarnation && (int)awaitedPsn != psn)
            {
                return false;
            }
            awaited.remove(srcQpn);
            engine.onDcSourceStates(-1);
        }
        return true;
    }

    /**
     * The initiator's request failed: drop what it sent behind it until it resets.
     *
     * @return false when the link already holds as many entries as it may.
     */
    boolean errored(final int srcQpn, final int incarnation)
    {
        if (erroredIncarnation.put(srcQpn, incarnation) == NONE)
        {
            engine.onDcSourceStates(1);
        }
        return size() <= maxEntries;
    }

    /**
     * The initiator was told receiver-not-ready for {@code psn}: only its retransmission executes next.
     *
     * @return false when the link already holds as many entries as it may.
     */
    boolean awaiting(final int srcQpn, final int incarnation, final int psn)
    {
        if (awaited.put(srcQpn, ((long)incarnation << 32) | (psn & 0xFFFF_FFFFL)) == NONE)
        {
            engine.onDcSourceStates(1);
        }
        return size() <= maxEntries;
    }

    int size()
    {
        return erroredIncarnation.size() + awaited.size();
    }

    /** The link closed: everything it held goes. */
    void clear()
    {
        engine.onDcSourceStates(-size());
        erroredIncarnation.clear();
        awaited.clear();
    }
}
