package io.dkv.raas.stream;

/**
 * The sending end's state of EXS's dynamic protocol (the sender's pseudo-code of the paper): the bytes
 * sent so far ({@code S_s}), the phase ({@code P_s}), the receiver's advertisements not yet used, and the
 * room left in the receiver's stream buffer. {@link #plan} chooses each transfer: into the oldest fresh
 * advertisement (direct), else into the stream buffer (indirect), else nothing until an advertisement or
 * an acknowledgement comes. An advertisement is stale, and thrown away, when the sender is indirect and
 * it names an older phase or bytes already sent: the receiver will have copied those bytes into the
 * buffer it advertised, out of its stream buffer.
 *
 * <p>Not thread-safe: its stream calls it under one lock. Allocates nothing.
 */
final class StreamSender
{
    static final int WAIT = 0;
    static final int DIRECT = 1;
    static final int INDIRECT = 2;

    private final int ringLength;
    private final int[] advertPhase;
    private final long[] advertSequence;
    private final int[] advertId;
    private final int[] advertLength;
    private final long[] advertOffset;
    private final long[] advertRegionAddress;
    private final long[] advertRegionLength;
    private final long[] advertEpoch;
    private final int[] advertRkey;
    private int advertHead;
    private int advertCount;
    private int phase = StreamPhases.FIRST;
    private long sequence;
    private long ringWritten;
    private long ringFreed;
    private long staleAdverts;

    // the last plan's transfer, read by the caller until the next plan
    private int planLength;
    private int planPhase;
    private long planSequence;
    private long planRingOffset;
    private int planAdvertId;
    private long planAdvertOffset;
    private long planRegionAddress;
    private long planRegionLength;
    private long planEpoch;
    private int planRkey;

    StreamSender(final int ringLength, final int maxAdverts)
    {
        this.ringLength = ringLength;
        advertPhase = new int[maxAdverts];
        advertSequence = new long[maxAdverts];
        advertId = new int[maxAdverts];
        advertLength = new int[maxAdverts];
        advertOffset = new long[maxAdverts];
        advertRegionAddress = new long[maxAdverts];
        advertRegionLength = new long[maxAdverts];
        advertEpoch = new long[maxAdverts];
        advertRkey = new int[maxAdverts];
    }

    /**
     * The receiver advertised a buffer.
     *
     * @throws StreamProtocolException when more arrive than the receiver may have outstanding.
     */
    void onAdvert(
        final int phase,
        final long sequence,
        final int id,
        final int length,
        final long offset,
        final long regionAddress,
        final long regionLength,
        final long epoch,
        final int rkey)
    {
        discardStale();
        if (advertCount == advertId.length)
        {
            throw new StreamProtocolException("advertisement " + id + " arrived with " + advertCount +
                " unused ones queued, the most a receiver may have outstanding");
        }
        if (length <= 0 || !StreamPhases.isDirect(phase))
        {
            throw new StreamProtocolException("advertisement " + id + " of " + length + " bytes in phase " + phase);
        }
        final int slot = (advertHead + advertCount) % advertId.length;
        advertPhase[slot] = phase;
        advertSequence[slot] = sequence;
        advertId[slot] = id;
        advertLength[slot] = length;
        advertOffset[slot] = offset;
        advertRegionAddress[slot] = regionAddress;
        advertRegionLength[slot] = regionLength;
        advertEpoch[slot] = epoch;
        advertRkey[slot] = rkey;
        advertCount++;
    }

    /**
     * The receiver copied {@code freedTotal} bytes out of its stream buffer in all.
     *
     * @throws StreamProtocolException when that is more than was sent into it, or less than it said before.
     */
    void onAck(final long freedTotal)
    {
        if (freedTotal > ringWritten || freedTotal < ringFreed)
        {
            throw new StreamProtocolException("acknowledgement of " + freedTotal + " bytes freed: " + ringWritten +
                " were written into the stream buffer, " + ringFreed + " acknowledged before");
        }
        ringFreed = freedTotal;
    }

    /**
     * Choose the next transfer of at most {@code wanted} bytes and count it as sent: read what it is from
     * {@link #planLength()} and the others.
     *
     * @return {@link #DIRECT}, {@link #INDIRECT}, or {@link #WAIT} when neither may go now.
     */
    int plan(final int wanted)
    {
        discardStale();
        if (advertCount > 0)
        {
            final int slot = advertHead;
            final int aPhase = advertPhase[slot];
            final long aSequence = advertSequence[slot];
            if (!StreamPhases.isDirect(phase))
            {
                if (aSequence != sequence)
                {
                    throw new StreamProtocolException("advertisement " + advertId[slot] + " for byte " + aSequence +
                        " in phase " + aPhase + ": the sender has sent " + sequence + " bytes");
                }
                phase = aPhase;
            }
            planLength = Math.min(wanted, advertLength[slot]);
            planAdvertId = advertId[slot];
            planAdvertOffset = advertOffset[slot];
            planRegionAddress = advertRegionAddress[slot];
            planRegionLength = advertRegionLength[slot];
            planEpoch = advertEpoch[slot];
            planRkey = advertRkey[slot];
            // an advertised buffer takes one transfer, however few of its bytes that fills
            dropHead();
            return commit(DIRECT);
        }
        return planIndirect(wanted);
    }

    private int planIndirect(final int wanted)
    {
        final long free = ringLength - (ringWritten - ringFreed);
        if (free <= 0)
        {
            return WAIT;
        }
        if (StreamPhases.isDirect(phase))
        {
            phase = StreamPhases.next(phase);
        }
        planRingOffset = ringWritten % ringLength;
        planLength = (int)Math.min(Math.min(wanted, free), ringLength - planRingOffset);
        ringWritten += planLength;
        return commit(INDIRECT);
    }

    /**
     * Throw away the advertisements at the head that are stale: while the sender is indirect, those of an
     * older phase or for bytes already sent. The receiver copies those bytes out of its stream buffer.
     */
    private void discardStale()
    {
        while (advertCount > 0 && !StreamPhases.isDirect(phase))
        {
            final int aPhase = advertPhase[advertHead];
            if (aPhase >= phase && advertSequence[advertHead] >= sequence)
            {
                return;
            }
            if (phase < aPhase)
            {
                // bytes went indirect after the receiver advertised: its later adverts of that phase are stale too
                phase = StreamPhases.next(aPhase);
            }
            dropHead();
            staleAdverts++;
        }
    }

    private int commit(final int kind)
    {
        planPhase = phase;
        planSequence = sequence;
        sequence += planLength;
        return kind;
    }

    private void dropHead()
    {
        advertHead = (advertHead + 1) % advertId.length;
        advertCount--;
    }

    int planLength()
    {
        return planLength;
    }

    int planPhase()
    {
        return planPhase;
    }

    long planSequence()
    {
        return planSequence;
    }

    long planRingOffset()
    {
        return planRingOffset;
    }

    int planAdvertId()
    {
        return planAdvertId;
    }

    long planAdvertOffset()
    {
        return planAdvertOffset;
    }

    long planRegionAddress()
    {
        return planRegionAddress;
    }

    long planRegionLength()
    {
        return planRegionLength;
    }

    long planEpoch()
    {
        return planEpoch;
    }

    int planRkey()
    {
        return planRkey;
    }

    /** @return bytes sent: the sequence number of the next byte. */
    long sequence()
    {
        return sequence;
    }

    int phase()
    {
        return phase;
    }

    /** @return advertisements thrown away as stale. */
    long staleAdverts()
    {
        return staleAdverts;
    }

    int queuedAdverts()
    {
        return advertCount;
    }
}
