package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import io.dkv.load.check.nemesis.FaultKinds;
import io.dkv.load.check.nemesis.NemesisEvent;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.LongHashSet;

import java.util.ArrayList;
import java.util.List;

/**
 * What appendfsync everysec allows a crash of every copy of a key to lose, taken out of what the checkers hold to:
 * each operation acknowledged ok from a window before such a fault struck on, and invoked before its last kill was
 * sent (one in flight then is acknowledged all the same when its PERSIST finds the node dead), is made one of unknown
 * outcome (info: it may or may not have taken effect), and counted, so that the verdict says how many
 * were excused and never excuses one silently. Under always nothing is excused. A process whose operation became
 * info goes on as a process of its own, as a history requires (no process invokes after an info).
 */
final class EverysecLosses
{
    /** What the excused operations' completions say. */
    static final String EXCUSED = "acknowledged within the everysec window of a crash of every copy: may be lost";

    /** The history as checked, and how many operations it excused. */
    record Adjusted(History history, long excused)
    {
    }

    private EverysecLosses()
    {
    }

    /**
     * @param windowNanos how long before a fault a write acknowledged may be lost: the fsync interval and the
     *                    PERSIST's trip, with a margin.
     * @return {@code history} with the ok operations completed after lossesFrom - window and invoked before
     * lossesUntil of a fault that loses every copy made info; unchanged when there are none.
     */
    static Adjusted apply(final History history, final List<NemesisEvent> faults, final long windowNanos)
    {
        final List<long[]> windows = new ArrayList<>();
        for (final NemesisEvent fault : faults)
        {
            if (FaultKinds.losesEveryCopy(fault.kind()))
            {
                windows.add(
                    new long[]{fault.lossesFrom() - windowNanos, Math.max(fault.lossesFrom(), fault.lossesUntil())});
            }
        }
        if (windows.isEmpty())
        {
            return new Adjusted(history, 0);
        }
        // in flight at the crash or acknowledged within the window before it: a write whose PERSIST found its node
        // dead is acknowledged all the same under async (counted), its only copies in memories that were lost
        final LongHashSet excusedAt = new LongHashSet();
        for (final Operation operation : history.operations())
        {
            if (operation.isOk() && lost(windows, operation.invoke().time(), operation.completion().time()))
            {
                excusedAt.add(operation.completion().index());
            }
        }
        if (excusedAt.isEmpty())
        {
            return new Adjusted(history, 0);
        }
        int nextProcess = 0;
        for (final Op op : history.ops())
        {
            nextProcess = Math.max(nextProcess, op.process() + 1);
        }
        final Int2IntHashMap alias = new Int2IntHashMap(-1);
        final List<Op> events = new ArrayList<>(history.ops().size());
        for (final Op op : history.ops())
        {
            final int current = alias.get(op.process());
            final int process = current == -1 ? op.process() : current;
            if (excusedAt.contains(op.index()))
            {
                events.add(new Op(op.index(), OpType.INFO, process, op.f(), op.key(), op.value(), op.time(), EXCUSED));
                alias.put(op.process(), nextProcess++);
            }
            else
            {
                events.add(process == op.process() ? op :
                    new Op(op.index(), op.type(), process, op.f(), op.key(), op.value(), op.time(), op.error()));
            }
        }
        return new Adjusted(History.of(events), excusedAt.size());
    }

    /** @return whether an operation invoked by a crash's last kill was acknowledged from the window before it on. */
    private static boolean lost(final List<long[]> windows, final long invokedAt, final long completedAt)
    {
        for (final long[] window : windows)
        {
            if (completedAt >= window[0] && invokedAt <= window[1])
            {
                return true;
            }
        }
        return false;
    }
}
