package io.dkv.load.check.nemesis;

import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;
import io.dkv.checker.queue.QueueChecker;
import io.dkv.load.check.harness.Role;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Which client processes have a write or compare-and-set in flight now, read from the tails of their live history
 * files (each client writes an invocation before it runs the operation, and its completion after): where the
 * {@code kill-mid-write} nemesis aims. A queue's enqueues and dequeues count as writes: a dequeue in flight is most
 * often a pop blocked on its compute node, whose waiter is then cut off or loses its node.
 */
public final class WritesInFlight
{
    /** How much of a history's end is read: a few hundred events, more than a client's workers have open. */
    private static final int TAIL_BYTES = 16 * 1024;

    private final Supplier<Map<Role, Path>> histories;

    /** @param histories each client role's history file of the moment (its current incarnation's). */
    public WritesInFlight(final Supplier<Map<Role, Path>> histories)
    {
        this.histories = histories;
    }

    /** @return a client with a write or compare-and-set invoked and not completed, and that operation; or null. */
    InFlight find(final List<Role> order)
    {
        final Map<Role, Path> files = histories.get();
        for (final Role client : order)
        {
            final Path file = files.get(client);
            if (file != null)
            {
                final Op open = openWrite(file);
                if (open != null)
                {
                    return new InFlight(client, open);
                }
            }
        }
        return null;
    }

    /**
     * @return the last write, compare-and-set, append, enqueue or dequeue of the file's tail that has no completion
     * after it, or null.
     */
    static Op openWrite(final Path file)
    {
        final String tail;
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r"))
        {
            final long length = in.length();
            final int size = (int)Math.min(length, TAIL_BYTES);
            final byte[] bytes = new byte[size];
            in.seek(length - size);
            in.readFully(bytes);
            tail = new String(bytes, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return null; // not there yet, or gone with a restart: nothing to aim at in it
        }
        final Map<Integer, Op> open = new HashMap<>();
        final String[] lines = tail.split("\n", -1);
        // the first line may be cut by the tail's start, the last by the writer: both are skipped
        for (int i = 1; i < lines.length - 1; i++)
        {
            final Op op;
            try
            {
                op = HistoryJson.parse(lines[i]);
            }
            catch (final IllegalArgumentException ex)
            {
                continue;
            }
            if (op.isInvoke())
            {
                open.put(op.process(), op);
            }
            else
            {
                open.remove(op.process());
            }
        }
        Op latest = null;
        for (final Op op : open.values())
        {
            if ((Op.WRITE.equals(op.f()) || Op.CAS.equals(op.f()) || isAppend(op) ||
                QueueChecker.ENQUEUE.equals(op.f()) || QueueChecker.DEQUEUE.equals(op.f())) &&
                (latest == null || op.index() > latest.index()))
            {
                latest = op;
            }
        }
        return latest;
    }

    private static boolean isAppend(final Op op)
    {
        return Op.TXN.equals(op.f()) && op.value() instanceof final List<?> microOps && !microOps.isEmpty() &&
            microOps.getFirst() instanceof final List<?> microOp && Op.APPEND.equals(microOp.getFirst());
    }

    /** A client and the write it has in flight. */
    record InFlight(Role client, Op write)
    {
    }
}
