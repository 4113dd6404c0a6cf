package io.dkv.raas.stream;

/**
 * The receiving end's state of EXS's dynamic protocol: the application's receives in the order posted,
 * which of them are advertised to the sender and in which phase, and the bytes waiting in the stream
 * buffer ({@code b_r}). Receives complete in order, each with 1 to its length bytes: filled by the
 * sender directly when it used the advertisement, else copied out of the stream buffer.
 *
 * <p>A receive is advertised only when the stream buffer is empty and every receive before it is
 * advertised in the current phase, so that the sender, filling advertisements in order, never puts
 * bytes after the ones a receive still waits for. The first advertisement of a direct phase carries
 * the exact sequence number of its first byte (nothing waits in the stream buffer then); the sender
 * takes it only if it sent nothing since, else throws it and the rest of its phase away, and the
 * receives they named are served from the stream buffer and advertised again in a later phase.
 *
 * <p>Not thread-safe: its stream calls it under one lock. Allocates nothing.
 */
final class StreamReceiver
{
    static final int PENDING = -2;
    static final int END = -1;

    private final int ringLength;
    private final int ackThreshold;
    private final int[] length;
    private final boolean[] advertisable;
    private final int[] advertPhase;
    private final int[] advertId;
    private final int[] result;
    private int head;
    private int count;
    private int done;
    private int phase = StreamPhases.FIRST;
    private int nextAdvertId = 1;
    private long received;
    private long delivered;
    private long estimate;
    private long ringReceived;
    private long ringConsumed;
    private long ringAcked;
    private long finTotal = -1;

    private int lastAdvertSlot;
    private long lastAdvertSequence;

    StreamReceiver(final int ringLength, final int maxPending)
    {
        this.ringLength = ringLength;
        this.ackThreshold = Math.max(1, ringLength / 4);
        length = new int[maxPending];
        advertisable = new boolean[maxPending];
        advertPhase = new int[maxPending];
        advertId = new int[maxPending];
        result = new int[maxPending];
    }

    /**
     * The application asks for up to {@code bytes} bytes.
     *
     * @param canAdvertise true when the sender may write into its buffer (registered memory peers may write).
     * @return the slot the receive holds until {@link #take}.
     */
    int post(final int bytes, final boolean canAdvertise)
    {
        if (count == length.length)
        {
            throw new IllegalStateException(count + " receives are posted already, the most a stream takes");
        }
        if (bytes <= 0)
        {
            throw new IllegalArgumentException("a receive of " + bytes + " bytes");
        }
        final int slot = (head + count) % length.length;
        length[slot] = bytes;
        advertisable[slot] = canAdvertise;
        advertPhase[slot] = 0;
        result[slot] = PENDING;
        count++;
        completeAtEnd();
        return slot;
    }

    /** @return the slot of the oldest receive, or -1 when none is posted. */
    int head()
    {
        return count == 0 ? -1 : head;
    }

    /** @return what the receive in the slot got: bytes, {@link #END}, or {@link #PENDING}. */
    int result(final int slot)
    {
        return result[slot];
    }

    /** The application took the oldest receive, which completed. */
    void take()
    {
        if (count == 0 || result[head] == PENDING)
        {
            throw new IllegalStateException("no completed receive to take (" + count + " posted)");
        }
        head = (head + 1) % length.length;
        count--;
        done--;
    }

    /** @return the slot of the oldest receive still waiting for bytes, or -1. */
    int open()
    {
        return done == count ? -1 : (head + done) % length.length;
    }

    /**
     * Choose the next receive to advertise, and count it as advertised: read it from {@link #advertSlot()},
     * {@link #advertSequence()}, {@link #phase()} and {@link #advertIdOf}.
     *
     * @return true when one should be advertised now.
     */
    boolean nextAdvert()
    {
        if (ringReceived != ringConsumed || done == count || isEnded())
        {
            return false;
        }
        final int first = (head + done) % length.length;
        int slot = -1;
        if (!StreamPhases.isDirect(phase))
        {
            slot = first;
        }
        else
        {
            for (int i = done; i < count; i++)
            {
                final int at = (head + i) % length.length;
                if (advertPhase[at] != phase)
                {
                    slot = at;
                    break;
                }
            }
            if (slot < 0)
            {
                return false;
            }
        }
        if (!advertisable[slot])
        {
            return false;
        }
        if (!StreamPhases.isDirect(phase))
        {
            phase = StreamPhases.next(phase);
            // nothing waits in the stream buffer: the next byte's number is known exactly
            estimate = received;
        }
        advertPhase[slot] = phase;
        advertId[slot] = nextAdvertId++;
        lastAdvertSlot = slot;
        lastAdvertSequence = estimate;
        // the least a receive takes is one byte
        estimate++;
        return true;
    }

    int advertSlot()
    {
        return lastAdvertSlot;
    }

    long advertSequence()
    {
        return lastAdvertSequence;
    }

    int advertIdOf(final int slot)
    {
        return advertId[slot];
    }

    int lengthOf(final int slot)
    {
        return length[slot];
    }

    /**
     * The sender wrote {@code bytes} into the buffer it was advertised as {@code id}.
     *
     * @return the slot of the receive it completed.
     * @throws StreamProtocolException when that is not the oldest open receive's current advertisement.
     */
    int onDirect(final int dataPhase, final long sequence, final int id, final int bytes)
    {
        final int slot = open();
        if (slot < 0 || advertId[slot] != id || advertPhase[slot] != dataPhase || sequence != received ||
            ringReceived != ringConsumed || bytes <= 0 || bytes > length[slot])
        {
            throw new StreamProtocolException("direct transfer of " + bytes + " bytes from byte " + sequence +
                " into advertisement " + id + " in phase " + dataPhase + ": expected " +
                (slot < 0 ? "none" : "advertisement " + advertId[slot] + " of " + length[slot] + " bytes in phase " +
                advertPhase[slot]) + " from byte " + received + " with " + (ringReceived - ringConsumed) +
                " bytes waiting in the stream buffer");
        }
        received += bytes;
        delivered += bytes;
        estimate += bytes - 1;
        complete(slot, bytes);
        return slot;
    }

    /**
     * The sender put {@code bytes} into the stream buffer at {@code offset}.
     *
     * @throws StreamProtocolException when they are not the next bytes of the stream, or overflow the buffer.
     */
    void onIndirect(final long sequence, final long offset, final int bytes)
    {
        if (sequence != received || offset != ringReceived % ringLength || bytes <= 0 ||
            ringReceived - ringConsumed + bytes > ringLength || offset + bytes > ringLength)
        {
            throw new StreamProtocolException("indirect transfer of " + bytes + " bytes from byte " + sequence +
                " at offset " + offset + ": expected byte " + received + " at offset " + ringReceived % ringLength +
                ", " + (ringLength - (ringReceived - ringConsumed)) + " bytes of the " + ringLength +
                "-byte stream buffer free");
        }
        received += bytes;
        ringReceived += bytes;
        if (StreamPhases.isDirect(phase))
        {
            phase = StreamPhases.next(phase);
        }
    }

    /** The sender will send no more: it sent {@code total} bytes. */
    void onFin(final long total)
    {
        if (total < received || finTotal >= 0)
        {
            throw new StreamProtocolException("end of stream at byte " + total + " after " + received +
                " bytes arrived" + (finTotal >= 0 ? ", and a first end at " + finTotal : ""));
        }
        finTotal = total;
        completeAtEnd();
    }

    /** @return bytes waiting in the stream buffer for the oldest open receive (0 when none or none waits). */
    int copyable()
    {
        final int slot = open();
        return slot < 0 ? 0 : (int)Math.min(ringReceived - ringConsumed, length[slot]);
    }

    /** @return where in the stream buffer the next byte to copy out is. */
    int ringReadOffset()
    {
        return (int)(ringConsumed % ringLength);
    }

    /**
     * The oldest open receive got {@code bytes} copied out of the stream buffer.
     *
     * @return its slot.
     */
    int consumed(final int bytes)
    {
        final int slot = open();
        if (slot < 0 || bytes <= 0 || bytes > ringReceived - ringConsumed || bytes > length[slot])
        {
            throw new IllegalStateException("copied " + bytes + " bytes out of the stream buffer holding " +
                (ringReceived - ringConsumed) + (slot < 0 ? " with no open receive" : " for a receive of " +
                length[slot]));
        }
        ringConsumed += bytes;
        delivered += bytes;
        if (advertPhase[slot] != 0)
        {
            estimate += bytes - 1;
        }
        complete(slot, bytes);
        completeAtEnd();
        return slot;
    }

    private void complete(final int slot, final int bytes)
    {
        result[slot] = bytes;
        done++;
    }

    private void completeAtEnd()
    {
        if (!isEnded())
        {
            return;
        }
        while (done < count)
        {
            complete((head + done) % length.length, END);
        }
    }

    /** @return true once the sender said it will send no more. */
    boolean isFinished()
    {
        return finTotal >= 0;
    }

    /** @return true when the sender ended the stream and every byte it sent was delivered. */
    boolean isEnded()
    {
        return finTotal >= 0 && delivered == finTotal;
    }

    /** @return true when enough was copied out of the stream buffer to tell the sender. */
    boolean ackDue()
    {
        return ringConsumed - ringAcked >= ackThreshold;
    }

    /** @return bytes copied out of the stream buffer in all, now acknowledged. */
    long ack()
    {
        ringAcked = ringConsumed;
        return ringAcked;
    }

    int phase()
    {
        return phase;
    }

    /** @return bytes delivered to the application in all. */
    long delivered()
    {
        return delivered;
    }

    /** @return bytes waiting in the stream buffer. */
    long buffered()
    {
        return ringReceived - ringConsumed;
    }
}
