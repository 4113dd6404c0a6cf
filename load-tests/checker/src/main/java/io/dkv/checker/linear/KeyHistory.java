package io.dkv.checker.linear;

import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;
import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;
import java.util.List;

/**
 * One key's operations made ready for the search: the ones that must or may be placed in the order, their
 * effects on the register as small integers (value ids, 0 for absent), and the order of their call and return
 * entries in real time.
 *
 * <p>Left out: failed operations (they certainly did not take effect), indeterminate reads (whatever they
 * read, nobody learnt it) and indeterminate writes and cas whose new value no read or cas ever observes
 * (taking effect could only stand in the way of the operations after them, so an order that uses one also
 * works without it), and indeterminate cas whose new value is the expected one (they change nothing). An ok cas
 * of that kind is taken for a read of its expected value. The others are numbered determinate first, then
 * indeterminate, each in invocation order.
 *
 * <p>Real time is the order of events in the history (their indices): an operation precedes another when its
 * completion comes before the other's invocation. Entry {@code 2 * op} is the call of op, {@code 2 * op + 1}
 * its return; indeterminate operations have no return (they may take effect at any time after their call).
 */
final class KeyHistory
{
    static final byte READ = 0;
    static final byte WRITE = 1;
    static final byte CAS = 2;
    static final int ABSENT = 0;

    private static final int NO_ID = -1;

    final String key;
    final List<Operation> subHistory;
    final Operation[] placed;
    final byte[] kinds;
    /** Read: the value id read; write: the id written; cas: the expected id. */
    final int[] values;
    /** Cas: the new value id. */
    final int[] newValues;
    final int determinate;
    final int[] entryOrder;

    private KeyHistory(
        final String key,
        final List<Operation> subHistory,
        final Operation[] placed,
        final byte[] kinds,
        final int[] values,
        final int[] newValues,
        final int determinate,
        final int[] entryOrder)
    {
        this.key = key;
        this.subHistory = subHistory;
        this.placed = placed;
        this.kinds = kinds;
        this.values = values;
        this.newValues = newValues;
        this.determinate = determinate;
        this.entryOrder = entryOrder;
    }

    int placedCount()
    {
        return placed.length;
    }

    /** @return the value id after op takes effect on a register holding {@code state}, or -1 if it cannot. */
    int apply(final int op, final int state)
    {
        return switch (kinds[op])
        {
            case READ -> values[op] == state ? state : -1;
            case WRITE -> values[op];
            default -> values[op] == state ? newValues[op] : -1;
        };
    }

    /** @param subHistory every operation on the key, in invocation order, all of them read, write or cas. */
    static KeyHistory compile(final String key, final List<Operation> subHistory)
    {
        final int size = subHistory.size();
        final Long2LongHashMap ids = new Long2LongHashMap(Math.max(8, size), 0.65f, NO_ID);
        final Operation[] kept = new Operation[size];
        final byte[] keptKinds = new byte[size];
        final int[] keptValues = new int[size];
        final int[] keptNewValues = new int[size];
        final boolean[] observed = new boolean[2 * size + 1];
        int keptCount = 0;
        int determinate = 0;
        for (final Operation operation : subHistory)
        {
            if (operation.isFail() || (operation.isIndeterminate() && Op.READ.equals(operation.f())))
            {
                continue;
            }
            final int k = keptCount++;
            kept[k] = operation;
            switch (operation.f())
            {
                case Op.READ ->
                {
                    keptKinds[k] = READ;
                    keptValues[k] = id(ids, RegisterValues.read(operation));
                    observed[keptValues[k]] = true;
                }
                case Op.WRITE ->
                {
                    keptKinds[k] = WRITE;
                    keptValues[k] = id(ids, RegisterValues.written(operation));
                }
                default ->
                {
                    keptKinds[k] = CAS;
                    keptValues[k] = id(ids, RegisterValues.casExpected(operation));
                    keptNewValues[k] = id(ids, RegisterValues.casNew(operation));
                    observed[keptValues[k]] = true;
                    if (keptValues[k] == keptNewValues[k])
                    {
                        // it changes nothing: when ok it says what the register held, as a read does
                        keptKinds[k] = READ;
                    }
                }
            }
            if (operation.isOk())
            {
                determinate++;
            }
        }

        int placedCount = determinate;
        for (int k = 0; k < keptCount; k++)
        {
            if (kept[k].isIndeterminate() && mayMatter(keptKinds[k], keptValues[k], keptNewValues[k], observed))
            {
                placedCount++;
            }
        }
        final Operation[] placed = new Operation[placedCount];
        final byte[] kinds = new byte[placedCount];
        final int[] values = new int[placedCount];
        final int[] newValues = new int[placedCount];
        int nextDeterminate = 0;
        int nextIndeterminate = determinate;
        for (int k = 0; k < keptCount; k++)
        {
            final int op;
            if (kept[k].isOk())
            {
                op = nextDeterminate++;
            }
            else if (mayMatter(keptKinds[k], keptValues[k], keptNewValues[k], observed))
            {
                op = nextIndeterminate++;
            }
            else
            {
                continue;
            }
            placed[op] = kept[k];
            kinds[op] = keptKinds[k];
            values[op] = keptValues[k];
            newValues[op] = keptNewValues[k];
        }
        return new KeyHistory(key, subHistory, placed, kinds, values, newValues, determinate,
            entryOrder(placed, determinate));
    }

    /** @return whether an indeterminate operation taking effect could make a difference. */
    private static boolean mayMatter(final byte kind, final int value, final int newValue, final boolean[] observed)
    {
        return kind != READ && observed[kind == CAS ? newValue : value];
    }

    private static int id(final Long2LongHashMap ids, final Long value)
    {
        if (value == null)
        {
            return ABSENT;
        }
        final long existing = ids.get(value.longValue());
        if (existing != NO_ID)
        {
            return (int) existing;
        }
        final int id = ids.size() + 1;
        ids.put(value.longValue(), id);
        return id;
    }

    private static int[] entryOrder(final Operation[] placed, final int determinate)
    {
        // event index in the high half, entry id in the low half: sorting the longs sorts the entries by real time
        final long[] keyed = new long[placed.length + determinate];
        int count = 0;
        for (int op = 0; op < placed.length; op++)
        {
            keyed[count++] = (placed[op].invoke().index() << 32) | (2L * op);
            if (op < determinate)
            {
                keyed[count++] = (placed[op].completion().index() << 32) | (2L * op + 1);
            }
        }
        Arrays.sort(keyed);
        final int[] order = new int[count];
        for (int i = 0; i < count; i++)
        {
            order[i] = (int) keyed[i];
        }
        return order;
    }
}
