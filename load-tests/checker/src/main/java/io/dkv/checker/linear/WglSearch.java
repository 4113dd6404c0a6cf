package io.dkv.checker.linear;

import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.List;

/**
 * Searches one key's history for a linearization, depth first, after Wing and Gong with Lowe's improvements.
 *
 * <p>Call and return entries form a doubly linked list in real-time order. Walking it from the head, a call
 * entry is an operation that may come next: if the register allows it and the configuration it leads to (the set
 * linearized and the register value) is new, the operation is pushed and its entries lifted out of the list, and
 * the walk starts again. Meeting a return entry means that operation had to come before everything after it:
 * the last choice is undone (its entries put back where they were) and the walk goes on after it. The key is
 * linearizable once no determinate operation is left; not, when there is no choice left to undo.
 *
 * <p>Two rules of the register cut the choices without losing a linearization: a read that may come next and
 * matches the register is taken first and alone ({@link #readAllowedNext}), and an indeterminate write or cas only
 * right before an operation that reads what it writes ({@link #observableNext}). Both depend on the configuration
 * only, so the cache stays sound.
 *
 * <p>One instance serves one thread, key after key, reusing its arrays.
 */
final class WglSearch
{
    private static final int DEADLINE_CHECK_MASK = 1023;
    private static final int NEW_CONFIGURATION = -1;
    private static final int DEAD_END = -3;
    private static final int FORCED = 1 << 30;

    private final ConfigurationCache cache;
    private final LinearizedSet linearized = new LinearizedSet();
    private final long limitBytes;
    private int[] next = new int[64];
    private int[] prev = new int[64];
    private int[] stackOps = new int[32];
    private int[] stackStates = new int[32];
    private int[] longest = new int[32];

    private KeyHistory history;
    private int determinate;

    /** @param limitBytes how much memory the cache of configurations of one key may take. */
    WglSearch(final long limitBytes)
    {
        this.limitBytes = limitBytes;
        this.cache = new ConfigurationCache(limitBytes);
    }

    KeyVerdict check(final KeyHistory keyHistory, final long deadlineNanos, final String budgetText)
    {
        prepare(keyHistory);
        final int head = 2 * keyHistory.placedCount();
        int remaining = determinate;
        int depth = 0;
        int longestDepth = 0;
        int longestAgrees = 0;
        int state = KeyHistory.ABSENT;
        int entry = NEW_CONFIGURATION;
        long steps = 0;
        while (remaining > 0)
        {
            if ((++steps & DEADLINE_CHECK_MASK) == 0 && System.nanoTime() - deadlineNanos > 0)
            {
                return KeyVerdict.unknown(keyHistory, cache.size(),
                    "the time budget (" + budgetText + ") ran out after " +
                    cache.size() + " configurations");
            }
            boolean forced = false;
            int op = -1;
            if (entry == NEW_CONFIGURATION)
            {
                op = readAllowedNext(head, state);
                forced = op >= 0;
                entry = forced ? 2 * op : next[head];
            }
            if (entry != DEAD_END && (entry & 1) == 0)
            {
                op = entry >>> 1;
                final int after = keyHistory.apply(op, state);
                if (after >= 0 && (op < determinate || (after != state && observableNext(head, op, after))))
                {
                    linearized.add(op);
                    final int added = cache.add(after, linearized);
                    if (added == ConfigurationCache.ADDED)
                    {
                        stackOps[depth] = forced ? op | FORCED : op;
                        stackStates[depth] = state;
                        depth++;
                        if (depth > longestDepth)
                        {
                            System.arraycopy(stackOps, longestAgrees, longest, longestAgrees, depth - longestAgrees);
                            longestAgrees = depth;
                            longestDepth = depth;
                        }
                        state = after;
                        if (op < determinate)
                        {
                            remaining--;
                        }
                        lift(op);
                        entry = NEW_CONFIGURATION;
                        continue;
                    }
                    linearized.remove(op);
                    if (added == ConfigurationCache.FULL)
                    {
                        return KeyVerdict.unknown(keyHistory, cache.size(),
                            "the cache of configurations reached its limit of " +
                            (limitBytes >> 20) + " MiB after " + cache.size() + " configurations");
                    }
                }
                // a read allowed next that leads nowhere condemns the configuration (see readAllowedNext)
                entry = forced ? DEAD_END : next[entry];
            }
            else
            {
                int popped;
                do
                {
                    if (depth == 0)
                    {
                        return KeyVerdict.invalid(keyHistory, cache.size(), operations(longest, longestDepth));
                    }
                    depth--;
                    longestAgrees = Math.min(longestAgrees, depth);
                    popped = stackOps[depth];
                    op = popped & ~FORCED;
                    state = stackStates[depth];
                    linearized.remove(op);
                    if (op < determinate)
                    {
                        remaining++;
                    }
                    unlift(op);
                }
                while ((popped & FORCED) != 0);
                entry = next[2 * op];
            }
        }
        return KeyVerdict.valid(keyHistory, cache.size());
    }

    /**
     * An indeterminate write or cas is only worth placing right before an operation that reads its value: in any
     * linearization it either is (or can be moved to be, it has no completion to bound it), or nothing sees its value
     * before the next write, and leaving it out changes nothing. So it is placed only when an operation that may
     * come next reads the value it writes, and not when the register holds that value already.
     */
    private boolean observableNext(final int head, final int producer, final int value)
    {
        final byte[] kinds = history.kinds;
        final int[] values = history.values;
        for (int entry = next[head]; (entry & 1) == 0; entry = next[entry])
        {
            final int op = entry >>> 1;
            if (op != producer && kinds[op] != KeyHistory.WRITE && values[op] == value)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * A read that may come next and reads what the register holds can be taken without trying the alternatives:
     * in any linearization from here it can be moved to the front, since it changes nothing and real time lets it
     * come before everything still to place. So if taking it leads nowhere, nothing from here does.
     *
     * @return such a read, or -1.
     */
    private int readAllowedNext(final int head, final int state)
    {
        final byte[] kinds = history.kinds;
        final int[] values = history.values;
        for (int entry = next[head]; (entry & 1) == 0; entry = next[entry])
        {
            final int op = entry >>> 1;
            if (kinds[op] == KeyHistory.READ && values[op] == state)
            {
                return op;
            }
        }
        return -1;
    }

    private void prepare(final KeyHistory keyHistory)
    {
        history = keyHistory;
        final int placed = keyHistory.placedCount();
        determinate = keyHistory.determinate;
        linearized.reset(determinate, placed - determinate);
        if (stackOps.length < placed)
        {
            stackOps = new int[placed];
            stackStates = new int[placed];
            longest = new int[placed];
        }
        final int entries = 2 * placed + 2;
        if (next.length < entries)
        {
            next = new int[entries];
            prev = new int[entries];
        }
        final int head = 2 * placed;
        final int tail = head + 1;
        int last = head;
        for (final int entry : keyHistory.entryOrder)
        {
            next[last] = entry;
            prev[entry] = last;
            last = entry;
        }
        next[last] = tail;
        prev[tail] = last;
        // the tail is odd, so the walk treats it as a return: nothing more can come next
        next[tail] = tail;
        cache.reset(placed);
    }

    private void lift(final int op)
    {
        remove(2 * op);
        if (op < determinate)
        {
            remove(2 * op + 1);
        }
    }

    private void unlift(final int op)
    {
        // dancing links: put back in the reverse order of removal
        if (op < determinate)
        {
            restore(2 * op + 1);
        }
        restore(2 * op);
    }

    private void remove(final int entry)
    {
        next[prev[entry]] = next[entry];
        prev[next[entry]] = prev[entry];
    }

    private void restore(final int entry)
    {
        next[prev[entry]] = entry;
        prev[next[entry]] = entry;
    }

    private List<Operation> operations(final int[] ops, final int count)
    {
        final List<Operation> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            list.add(history.placed[ops[i] & ~FORCED]);
        }
        return list;
    }
}
