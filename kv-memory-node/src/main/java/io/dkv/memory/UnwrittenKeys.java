package io.dkv.memory;

import org.agrona.collections.LongArrayList;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The keys the key store refused to take (a full or failing disk), kept until a write of them succeeds: each is
 * written then as what the index holds for it, so a key changed meanwhile goes as its latest state, once. Writes are
 * tried again a whole fsync interval after a failure, and only once the disk has room ({@code KeyStore.hasRoom}), so
 * that a failing disk is not hammered; meanwhile the keys of new PERSISTs join these, and a sync writer is answered
 * {@code DISK_FAILED} at once. Used by the request server's thread alone.
 */
final class UnwrittenKeys
{
    private final LinkedHashSet<ByteBuffer> keys = new LinkedHashSet<>();
    private String failure;
    private long failedAtEpochMs;
    private long nextTryNanos;
    private long failures;

    /** @return whether the last write of the key store failed and none succeeded since. */
    boolean failing()
    {
        return failure != null;
    }

    /** @return whether a write may be tried now: none failed, or an interval passed since the last failure. */
    boolean mayTry(final long nowNanos)
    {
        return failure == null || nowNanos - nextTryNanos >= 0;
    }

    /** @return whether keys wait and their next try is due. */
    boolean due(final long nowNanos)
    {
        return failure != null && !keys.isEmpty() && nowNanos - nextTryNanos >= 0;
    }

    /**
     * A try is due: it goes ahead when the disk has room, else the next is an interval from now.
     *
     * @return whether to write now.
     */
    boolean retry(final boolean room, final long nowNanos, final long intervalNanos)
    {
        if (!room)
        {
            nextTryNanos = nowNanos + intervalNanos;
        }
        return room;
    }

    void add(final List<byte[]> batch)
    {
        for (int i = 0; i < batch.size(); i++)
        {
            keys.add(ByteBuffer.wrap(batch.get(i)));
        }
    }

    /** Move the keys waiting into {@code batch}, which is written next; {@link #failed} puts them back. */
    void drainTo(final List<byte[]> batch, final LongArrayList named)
    {
        if (keys.isEmpty())
        {
            // every batch passes here: one whose disk works allocates nothing
            return;
        }
        final List<byte[]> waiting = new ArrayList<>(keys.size());
        for (final ByteBuffer key : keys)
        {
            waiting.add(key.array());
        }
        keys.clear();
        for (final byte[] key : waiting)
        {
            batch.add(key);
            named.addLong(-1);
        }
    }

    /**
     * A write failed: its keys wait for the next try, an interval from now.
     *
     * @return true when the disk was working before (the failure is news, worth a log line).
     */
    boolean failed(final List<byte[]> batch, final String why, final long nowNanos, final long nowEpochMs,
        final long intervalNanos)
    {
        add(batch);
        final boolean news = failure == null;
        if (news)
        {
            failedAtEpochMs = nowEpochMs;
        }
        failure = why;
        failures++;
        nextTryNanos = nowNanos + intervalNanos;
        return news;
    }

    /** A write succeeded: the disk works again. @return true when it had failed (worth a log line). */
    boolean written()
    {
        final boolean recovered = failure != null && keys.isEmpty();
        if (keys.isEmpty())
        {
            failure = null;
            failedAtEpochMs = 0;
        }
        return recovered;
    }

    /** @return the keys waiting for the disk. */
    int size()
    {
        return keys.size();
    }

    /** @return why the last write failed (the key store's error, naming its file), or null. */
    String failure()
    {
        return failure;
    }

    /** @return when the disk began failing (epoch ms), or 0. */
    long failedAtEpochMs()
    {
        return failedAtEpochMs;
    }

    /** @return writes of the key store that failed since the node started. */
    long failures()
    {
        return failures;
    }
}
