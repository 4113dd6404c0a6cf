package io.dkv.verbs;

/**
 * The scatter/gather list of a work request, as the {@code sg_list} and {@code num_sge} of
 * {@code struct ibv_send_wr} and {@code struct ibv_recv_wr}: the local memory a request sends from or
 * receives into. It holds {@link #maxSge()} preallocated elements, of which the first
 * {@link #numSge()} are the list, so filling one in allocates nothing. A provider over ibverbs writes
 * those out as an array of {@code struct ibv_sge}; the software providers copy them into their queue
 * entries ({@link #copyFrom}), as an RNIC copies a WQE.
 */
public final class ScatterGatherList
{
    private final ScatterGatherElement[] elements;
    private int numSge;

    /**
     * @param maxSge how many elements the list can hold.
     */
    public ScatterGatherList(final int maxSge)
    {
        if (maxSge < 0)
        {
            throw new IllegalArgumentException("maxSge " + maxSge + " is negative");
        }
        elements = new ScatterGatherElement[maxSge];
        for (int i = 0; i < maxSge; i++)
        {
            elements[i] = new ScatterGatherElement();
        }
    }

    /** @return how many elements the list can hold. */
    public int maxSge()
    {
        return elements.length;
    }

    /** @return how many elements are in the list. */
    public int numSge()
    {
        return numSge;
    }

    /**
     * Take the first {@code numSge} elements as the list; fill them in with {@link #sge}.
     *
     * @return this.
     * @throws IllegalArgumentException when {@code numSge} is outside 0 to {@link #maxSge()}.
     */
    public ScatterGatherList numSge(final int numSge)
    {
        if (numSge < 0 || numSge > elements.length)
        {
            throw new IllegalArgumentException("numSge " + numSge + " outside 0.." + elements.length);
        }
        this.numSge = numSge;
        return this;
    }

    /**
     * @param index of an element, below {@link #maxSge()}: one beyond {@link #numSge()} may be filled in first.
     * @return the element.
     */
    public ScatterGatherElement sge(final int index)
    {
        if (index < 0 || index >= elements.length)
        {
            throw new IndexOutOfBoundsException("sge " + index + " outside 0.." + (elements.length - 1));
        }
        return elements[index];
    }

    /**
     * Make the list exactly one element covering part of a region.
     *
     * @param region the local region.
     * @param offset byte offset inside it.
     * @param length number of bytes.
     * @return this.
     */
    public ScatterGatherList set(final MemoryRegion region, final long offset, final int length)
    {
        sge(0).set(region, offset, length);
        numSge = 1;
        return this;
    }

    /**
     * Make this list a copy of another.
     *
     * @return this.
     * @throws IllegalArgumentException when the other list has more elements than this one can hold.
     */
    public ScatterGatherList copyFrom(final ScatterGatherList other)
    {
        numSge(other.numSge);
        for (int i = 0; i < numSge; i++)
        {
            final ScatterGatherElement from = other.elements[i];
            elements[i].addr(from.addr()).length(from.length()).lkey(from.lkey());
        }
        return this;
    }

    /** @return the bytes the elements of the list describe, together. */
    public long totalLength()
    {
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            total += elements[i].length();
        }
        return total;
    }

    public String toString()
    {
        final StringBuilder text = new StringBuilder("sg_list[");
        for (int i = 0; i < numSge; i++)
        {
            text.append(i == 0 ? "" : ", ").append(elements[i]);
        }
        return text.append(']').toString();
    }
}
