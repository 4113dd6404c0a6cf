package io.dkv.compute.command;

import io.dkv.client.ordered.SortedSet;
import org.agrona.collections.LongHashSet;

import java.util.concurrent.ThreadLocalRandom;

/**
 * ZRANDMEMBER's picks: random ranks, each one walk down the tree by score. A negative count picks that many with
 * repeats; a positive one distinct members, all of them (by score) when it asks for as many as there are.
 */
final class SortedSetRandom
{
    private SortedSetRandom()
    {
    }

    /** @return null, having added the picks to {@code into}. */
    static Void pick(final SortedSet set, final long count, final ScoredMembers into)
    {
        into.clear();
        final long size = set.size();
        if (size == 0 || count == 0)
        {
            return null;
        }
        final long asked = count < 0 ? -count : Math.min(count, size);
        if (asked > RandomElements.MAX_PICKS)
        {
            throw new IllegalArgumentException("count " + count + " would answer more than the " +
                RandomElements.MAX_PICKS + " elements a dkv compute node answers at once");
        }
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        if (count < 0 || count == 1)
        {
            for (long i = 0; i < asked; i++)
            {
                at(set, random.nextLong(size), into);
            }
            return null;
        }
        if (asked == size)
        {
            set.forEach(0, size, false, (member, score) ->
            {
                into.add(member, score);
                return true;
            });
            return null;
        }
        final LongHashSet ranks = new LongHashSet();
        while (ranks.size() < asked)
        {
            final long rank = random.nextLong(size);
            if (ranks.add(rank))
            {
                at(set, rank, into);
            }
        }
        return null;
    }

    private static void at(final SortedSet set, final long rank, final ScoredMembers into)
    {
        set.forEach(rank, rank + 1, false, (member, score) ->
        {
            into.add(member, score);
            return false;
        });
    }
}
