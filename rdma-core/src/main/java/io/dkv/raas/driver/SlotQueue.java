package io.dkv.raas.driver;

/**
 * A first-in first-out queue of request slots used by one thread at a time (the submitter).
 */
final class SlotQueue
{
    private RequestSlot[] slots;
    private int head;
    private int size;

    SlotQueue(final int capacity)
    {
        slots = new RequestSlot[Math.max(4, capacity)];
    }

    boolean isEmpty()
    {
        return size == 0;
    }

    int size()
    {
        return size;
    }

    void add(final RequestSlot slot)
    {
        if (size == slots.length)
        {
            final RequestSlot[] grown = new RequestSlot[slots.length * 2];
            for (int i = 0; i < size; i++)
            {
                grown[i] = slots[(head + i) % slots.length];
            }
            slots = grown;
            head = 0;
        }
        slots[(head + size) % slots.length] = slot;
        size++;
    }

    RequestSlot peek()
    {
        return size == 0 ? null : slots[head];
    }

    RequestSlot poll()
    {
        if (size == 0)
        {
            return null;
        }
        final RequestSlot slot = slots[head];
        slots[head] = null;
        head = (head + 1) % slots.length;
        size--;
        return slot;
    }
}
