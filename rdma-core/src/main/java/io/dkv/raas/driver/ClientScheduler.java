package io.dkv.raas.driver;

import io.dkv.raas.ServiceClass;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * When the standalone driver takes each attached client's commands (LITE's performance isolation): all
 * clients share one command ring, read in arrival order, so a bulk client that fills it delays everyone
 * behind its backlog. With isolation, a latency client's command is taken the moment it is read; a bulk
 * client's goes into the client's own queue, and each duty cycle takes {@code weight} commands of each
 * bulk client, in order, after the cycle's reading. A latency request then waits behind a few bulk ones
 * at most; bulk clients share what is left by weight. Without isolation every command is taken when read.
 *
 * @param <T> what the commands are taken for: a client's session.
 */
final class ClientScheduler<T>
{
    /** Takes one command now. */
    @FunctionalInterface
    interface Taker<T>
    {
        void take(int type, MutableDirectBuffer buffer, int index, int length, T owner);
    }

    private final boolean isolation;
    private final List<ClientQueue<T>> bulk = new ArrayList<>();
    private final UnsafeBuffer deferring;
    private final ExpandableRingBuffer.MessageConsumer takeDeferred = this::takeDeferred;
    private Taker<T> taker;
    private ClientQueue<T> serving;
    private int budget;

    /**
     * @param maxCommandLength the longest command the ring carries.
     */
    ClientScheduler(final boolean isolation, final int maxCommandLength)
    {
        this.isolation = isolation;
        this.deferring = new UnsafeBuffer(new byte[Integer.BYTES + maxCommandLength]);
    }

    void add(final ClientQueue<T> queue)
    {
        if (queue.serviceClass == ServiceClass.BULK)
        {
            bulk.add(queue);
        }
    }

    void remove(final ClientQueue<T> queue)
    {
        bulk.remove(queue);
    }

    /**
     * A command of the client was read: keep it for later when the client is served in bulk, else leave it to
     * the caller to take now.
     *
     * @return true when it was kept.
     */
    boolean defer(final int type, final MutableDirectBuffer buffer, final int index, final int length,
        final ClientQueue<T> queue)
    {
        if (!isolation || queue.serviceClass != ServiceClass.BULK)
        {
            return false;
        }
        deferring.putInt(0, type);
        deferring.putBytes(Integer.BYTES, buffer, index, length);
        queue.deferred.append(deferring, 0, Integer.BYTES + length);
        return true;
    }

    /** @return bulk clients that had commands taken this cycle, each up to its weight. */
    int takeBulk(final Taker<T> taker)
    {
        this.taker = taker;
        int work = 0;
        for (int i = 0, n = bulk.size(); i < n; i++)
        {
            final ClientQueue<T> queue = bulk.get(i);
            if (!queue.deferred.isEmpty())
            {
                serving = queue;
                budget = queue.weight;
                queue.deferred.consume(takeDeferred, Integer.MAX_VALUE);
                work++;
            }
        }
        serving = null;
        return work;
    }

    private boolean takeDeferred(final MutableDirectBuffer buffer, final int offset, final int length,
        final int headOffset)
    {
        if (budget == 0)
        {
            return false;
        }
        budget--;
        taker.take(buffer.getInt(offset), buffer, offset + Integer.BYTES, length - Integer.BYTES, serving.owner);
        return true;
    }
}
