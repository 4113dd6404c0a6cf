package io.dkv.compute.command;

import io.dkv.client.collection.Collection;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HRANDFIELD's and SRANDMEMBER's picks with a count, as redis 7.0 makes them: a negative count picks that many with
 * repeats, a positive one that many distinct elements (all of them when it has no more), each pick a random segment's
 * random element ({@link Collection#randomField}).
 */
final class RandomElements
{
    /** Picks answered at once at most: a count past it is refused rather than filling the node's memory. */
    static final long MAX_PICKS = 1 << 24;

    private RandomElements()
    {
    }

    /**
     * @return {field, value} pairs picked from the collection (none when it has no element or the count is 0).
     * @throws IllegalArgumentException when more than {@link #MAX_PICKS} would be answered.
     */
    static List<byte[][]> pick(final Collection collection, final long count)
    {
        final List<byte[][]> picked = new ArrayList<>();
        final long size = collection.size();
        if (size == 0 || count == 0)
        {
            return picked;
        }
        final long asked = count < 0 ? -count : count;
        if ((count < 0 || asked > size) && Math.min(asked, count < 0 ? asked : size) > MAX_PICKS)
        {
            throw new IllegalArgumentException("count " + count + " would answer more than the " + MAX_PICKS +
                " elements a dkv compute node answers at once");
        }
        if (count < 0 || count == 1)
        {
            for (long i = 0; i < asked; i++)
            {
                final byte[] field = collection.randomField();
                picked.add(new byte[][]{field, collection.get(field)});
            }
            return picked;
        }
        if (asked >= size || asked * 3 > size)
        {
            collection.forEach((field, value) -> picked.add(new byte[][]{field, value}));
            Collections.shuffle(picked);
            return asked >= size ? picked : new ArrayList<>(picked.subList(0, (int)asked));
        }
        final Map<ByteBuffer, byte[][]> distinct = new LinkedHashMap<>();
        while (distinct.size() < asked)
        {
            final byte[] field = collection.randomField();
            distinct.putIfAbsent(ByteBuffer.wrap(field), new byte[][]{field, collection.get(field)});
        }
        picked.addAll(distinct.values());
        return picked;
    }
}
