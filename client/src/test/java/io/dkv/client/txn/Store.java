package io.dkv.client.txn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The keys, each a linearizable register with compare-and-set by version (the replication layer below, checked by
 * its own model, gives exactly this). Immutable: a write makes a new store that shares the other keys' slots.
 *
 * @param slots a slot per key, x first.
 */
record Store(List<Slot> slots)
{
    static Store initial(final int keys)
    {
        return new Store(Collections.nCopies(keys, Slot.INITIAL));
    }

    int keys()
    {
        return slots.size();
    }

    Slot slot(final int key)
    {
        return slots.get(key);
    }

    Store with(final int key, final Slot slot)
    {
        final List<Slot> next = new ArrayList<>(slots);
        next.set(key, slot);
        return new Store(List.copyOf(next));
    }

    String describe(final TxnScope scope)
    {
        final StringBuilder out = new StringBuilder();
        for (int key = 0; key < keys(); key++)
        {
            out.append(key == 0 ? "" : "  ").append(Values.key(key)).append('=').append(slot(key).describe(scope));
        }
        return out.toString();
    }
}
