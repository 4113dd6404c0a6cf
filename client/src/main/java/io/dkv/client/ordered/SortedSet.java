package io.dkv.client.ordered;

import io.dkv.client.KvErrors;
import io.dkv.client.txn.Transaction;
import io.dkv.format.KeyHash;
import io.dkv.format.ValueKind;

import java.util.Arrays;

/**
 * A sorted set (redis's ZADD, ZRANGE...) as one transaction sees it: two trees of one {@link TreeCollection}, one by
 * score (keys {@link ScoreKeys}: score, then member; values empty), one by member (keys the member's 64-bit hash,
 * then the member; values the score's 8 bytes), so that a member's score is one walk down the second and its rank
 * one walk down the first. The second is in hash order so that ZSCAN's cursor is a hash: a member present for the
 * whole scan comes back once, whatever changes come between steps. Every change rewrites the
 * header; {@link #write} hands it all to the commit.
 */
public final class SortedSet
{
    static final int BY_SCORE = 0;
    static final int BY_MEMBER = 1;
    private static final byte[] NONE = new byte[0];

    private final TreeCollection blocks;

    private SortedSet(final TreeCollection blocks)
    {
        this.blocks = blocks;
    }

    /**
     * Open the sorted set at {@code key} in {@code tx}: its header is read (and checked by the commit).
     *
     * @throws io.dkv.client.WrongKindException when the key holds a value of another kind.
     */
    public static SortedSet open(final Transaction tx, final byte[] key, final int segmentBytes)
    {
        return new SortedSet(TreeCollection.open(tx, key, ValueKind.ZSET, segmentBytes));
    }

    /** @return its blocks: what DEL, EXPIRE and COPY act on. */
    public TreeCollection blocks()
    {
        return blocks;
    }

    /** @return true when the key holds a sorted set. */
    public boolean exists()
    {
        return blocks.exists();
    }

    /** @return its members. */
    public long size()
    {
        return blocks.size();
    }

    /** @return the member's score, or null when it is no member. */
    public Double score(final byte[] member)
    {
        final OrderedTree byMember = blocks.readTree(BY_MEMBER);
        final byte[] score = byMember == null ? null : byMember.get(memberKey(member));
        return score == null ? null : ScoreKeys.score(score);
    }

    /**
     * Set the member's score, adding it when it is none.
     *
     * @return its score before, or null when it is new.
     */
    public Double put(final byte[] member, final double score)
    {
        final int bytes = ScoreKeys.SCORE_BYTES + member.length;
        if (bytes > TreeCollection.MAX_ELEMENT_BYTES)
        {
            throw new IllegalArgumentException("a sorted set's member takes at most " +
                (TreeCollection.MAX_ELEMENT_BYTES - ScoreKeys.SCORE_BYTES) + " bytes; this one takes " + member.length +
                " (key " + KvErrors.describe(blocks.key()) + ")");
        }
        final Double before = score(member);
        if (before != null && Arrays.equals(ScoreKeys.scoreBytes(before), ScoreKeys.scoreBytes(score)))
        {
            return before;
        }
        if (before != null)
        {
            blocks.tree(BY_SCORE).remove(ScoreKeys.key(before, member));
        }
        blocks.tree(BY_SCORE).put(ScoreKeys.key(score, member), NONE);
        blocks.tree(BY_MEMBER).put(memberKey(member), ScoreKeys.scoreBytes(score));
        return before;
    }

    /** @return true when it was a member, which it no longer is. */
    public boolean remove(final byte[] member)
    {
        final Double score = score(member);
        if (score == null)
        {
            return false;
        }
        blocks.tree(BY_SCORE).remove(ScoreKeys.key(score, member));
        blocks.tree(BY_MEMBER).remove(memberKey(member));
        return true;
    }

    /** @return the member's rank by score (0 for the lowest), or -1 when it is no member. */
    public long rank(final byte[] member)
    {
        final Double score = score(member);
        return score == null ? -1 : blocks.readTree(BY_SCORE).rankBelow(ScoreKeys.key(score, member));
    }

    /**
     * @return how many members have scores below {@code score} ({@code inclusive}: at or below): the rank where a
     * range from there starts, or where one up to there ends.
     */
    public long countBelow(final double score, final boolean inclusive)
    {
        final OrderedTree byScore = blocks.readTree(BY_SCORE);
        if (byScore == null)
        {
            return 0;
        }
        final byte[] bound = inclusive ? ScoreKeys.after(ScoreKeys.scoreBytes(score)) : ScoreKeys.scoreBytes(score);
        return bound == null ? byScore.size() : byScore.rankBelow(bound);
    }

    /**
     * @return how many members sort below {@code member} ({@code inclusive}: at or below) by member alone (redis's
     * ZRANGEBYLEX, meant for a set whose members all have one score): one walk down when the lowest and the highest
     * score are one, else a binary search by member over the ranks, which answers as redis's skiplist descent does
     * wherever the members' order agrees with the scores'.
     */
    public long countBelowMember(final byte[] member, final boolean inclusive)
    {
        final OrderedTree byScore = blocks.readTree(BY_SCORE);
        if (byScore == null || byScore.size() == 0)
        {
            return 0;
        }
        final double lowest = ScoreKeys.score(byScore.at(0)[0]);
        if (lowest == ScoreKeys.score(byScore.at(byScore.size() - 1)[0]))
        {
            final byte[] key = ScoreKeys.key(lowest, member);
            return byScore.rankBelow(inclusive ? ScoreKeys.justAfter(key) : key);
        }
        long low = 0;
        long high = byScore.size();
        while (low < high)
        {
            final long middle = (low + high) >>> 1;
            final byte[] key = byScore.at(middle)[0];
            final int order = Arrays.compareUnsigned(key, ScoreKeys.SCORE_BYTES, key.length, member, 0, member.length);
            if (order < 0 || (inclusive && order == 0))
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }
        return low;
    }

    /**
     * Visit the members from rank {@code from} up to (not including) {@code to} by score, or {@code reverse}, from
     * rank {@code to - 1} down, until the visitor says stop.
     */
    public void forEach(final long from, final long to, final boolean reverse, final MemberVisitor visitor)
    {
        final OrderedTree byScore = blocks.readTree(BY_SCORE);
        if (byScore != null)
        {
            if (reverse ? to >= size() : from <= 0)
            {
                // a range from either end (ZRANGE 0 9, ZPOPMAX's look): its path in one round trip
                byScore.prefetchEnd(reverse);
            }
            byScore.forEach(from, to, reverse, (key, value) -> visitor.visit(ScoreKeys.member(key),
                ScoreKeys.score(key)));
        }
    }

    /** Remove the members from rank {@code from} up to (not including) {@code to}. @return how many. */
    public long removeRange(final long from, final long to)
    {
        final long first = Math.max(0, from);
        final long end = Math.min(size(), to);
        long removed = 0;
        if (first < end && (first == 0 || end == size()))
        {
            // ZPOPMIN, ZPOPMAX, ZREMRANGEBYRANK at an end: the by-score path in one round trip
            blocks.tree(BY_SCORE).prefetchEnd(first != 0);
        }
        for (long i = first; i < end; i++)
        {
            final byte[] key = blocks.tree(BY_SCORE).removeAt(first)[0];
            blocks.tree(BY_MEMBER).remove(memberKey(ScoreKeys.member(key)));
            removed++;
        }
        return removed;
    }

    /**
     * One step of a scan by cursor (redis's ZSCAN): members in the order of their hashes from the cursor's, until
     * {@code count} were visited and the next member's hash differs from the last one's.
     *
     * @param cursor 0 to begin; then what the step before returned.
     * @return the next cursor (the hash after the last member visited), 0 when the scan is done.
     */
    public long scanStep(final long cursor, final long count, final MemberVisitor visitor)
    {
        final OrderedTree byMember = blocks.readTree(BY_MEMBER);
        if (byMember == null)
        {
            return 0;
        }
        final long[] next = {0};
        final long[] visited = {0};
        final long from = byMember.rankBelow(hashBytes(cursor));
        byMember.forEach(from, byMember.size(), false, (key, value) ->
        {
            final long hash = hashOf(key);
            if (visited[0] >= count && hash != next[0] - 1)
            {
                return false;
            }
            visitor.visit(Arrays.copyOfRange(key, Long.BYTES, key.length), ScoreKeys.score(value));
            visited[0]++;
            next[0] = hash + 1;
            return true;
        });
        return visited[0] < count || next[0] == 0 ? 0 : next[0];
    }

    private static byte[] memberKey(final byte[] member)
    {
        final byte[] key = Arrays.copyOf(hashBytes(KeyHash.hash(member)), Long.BYTES + member.length);
        System.arraycopy(member, 0, key, Long.BYTES, member.length);
        return key;
    }

    private static byte[] hashBytes(final long hash)
    {
        final byte[] bytes = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++)
        {
            bytes[i] = (byte)(hash >>> (56 - 8 * i));
        }
        return bytes;
    }

    private static long hashOf(final byte[] key)
    {
        long hash = 0;
        for (int i = 0; i < Long.BYTES; i++)
        {
            hash = (hash << 8) | (key[i] & 0xFF);
        }
        return hash;
    }

    /** Hand the changes to the transaction; a set left with no member is removed. */
    public void write()
    {
        blocks.write();
    }

    /** Sees members with their scores until it answers false. */
    @FunctionalInterface
    public interface MemberVisitor
    {
        /** @return false to stop. */
        boolean visit(byte[] member, double score);
    }
}
