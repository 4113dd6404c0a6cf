package io.dkv.compute.command;

import io.dkv.client.ordered.SortedSet;

import java.util.Arrays;

/**
 * The ranks a range of a sorted set covers, by score or by member (redis's ZRANGEBYSCORE and ZRANGEBYLEX bounds), so
 * that every command over a range (ZRANGE, ZCOUNT, ZLEXCOUNT, ZREMRANGEBY...) reads it as ranks: one walk down the
 * tree by score for each end.
 */
final class ScoreRanges
{
    private ScoreRanges()
    {
    }

    /** One end of a range by member: "-" and "+" (below and above every member), "[m" inclusive, "(m" exclusive. */
    record LexBound(byte[] member, boolean exclusive, int infinity)
    {
        /** @return the bound, or null where redis answers "min or max not valid string range item". */
        static LexBound parse(final byte[] argument)
        {
            if (argument.length == 0)
            {
                return null;
            }
            return switch (argument[0])
            {
                case '+' -> argument.length == 1 ? new LexBound(null, true, 1) : null;
                case '-' -> argument.length == 1 ? new LexBound(null, true, -1) : null;
                case '(' -> new LexBound(Arrays.copyOfRange(argument, 1, argument.length), true, 0);
                case '[' -> new LexBound(Arrays.copyOfRange(argument, 1, argument.length), false, 0);
                default -> null;
            };
        }
    }

    /** @return {first rank, end rank (exclusive)} of the members whose scores lie between the bounds. */
    static long[] byScore(final SortedSet set, final Scores.Bound min, final Scores.Bound max)
    {
        final long from = set.countBelow(min.value(), min.exclusive());
        final long to = set.countBelow(max.value(), !max.exclusive());
        return new long[]{from, Math.max(from, to)};
    }

    /** @return {first rank, end rank (exclusive)} of the members between the bounds by member. */
    static long[] byLex(final SortedSet set, final LexBound min, final LexBound max)
    {
        final long from = lexRank(set, min, min.exclusive());
        final long to = lexRank(set, max, !max.exclusive());
        return new long[]{from, Math.max(from, to)};
    }

    private static long lexRank(final SortedSet set, final LexBound bound, final boolean inclusive)
    {
        if (bound.infinity() != 0)
        {
            return bound.infinity() < 0 ? 0 : set.size();
        }
        return set.countBelowMember(bound.member(), inclusive);
    }

    /**
     * @return {first rank, end rank (exclusive)} of redis's start and stop indexes (negative from the end), counted
     * from the highest score when {@code reverse}, as forward ranks.
     */
    static long[] byRank(final long size, final long start, final long stop, final boolean reverse)
    {
        long first = start < 0 ? size + start : start;
        long last = stop < 0 ? size + stop : stop;
        if (first < 0)
        {
            first = 0;
        }
        if (first > last || first >= size)
        {
            return new long[]{0, 0};
        }
        if (last >= size)
        {
            last = size - 1;
        }
        return reverse ? new long[]{size - 1 - last, size - first} : new long[]{first, last + 1};
    }
}
