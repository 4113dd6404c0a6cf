package io.dkv.compute.command;

import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * Members of a sorted set with their scores, gathered inside a transaction and answered after its commit: a flat
 * array (member, score, member, score...) in RESP2, an array of [member, score] pairs in RESP3, members alone without
 * scores, as redis's ZRANGE WITHSCORES, ZPOPMIN and ZRANDMEMBER answer.
 */
final class ScoredMembers
{
    final List<byte[]> members = new ArrayList<>();
    private double[] scores = new double[16];

    void add(final byte[] member, final double score)
    {
        if (members.size() == scores.length)
        {
            scores = java.util.Arrays.copyOf(scores, scores.length * 2);
        }
        scores[members.size()] = score;
        members.add(member);
    }

    int size()
    {
        return members.size();
    }

    double score(final int i)
    {
        return scores[i];
    }

    void clear()
    {
        members.clear();
    }

    /** Answer them: with scores flat in RESP2 and in pairs in RESP3 ({@code pairs}), or members alone. */
    void reply(final ByteBuf out, final boolean withScores, final int protocol)
    {
        final boolean pairs = withScores && protocol >= 3;
        RespReplies.arrayHeader(out, withScores && !pairs ? 2 * size() : size());
        for (int i = 0; i < size(); i++)
        {
            if (pairs)
            {
                RespReplies.arrayHeader(out, 2);
            }
            RespReplies.bulk(out, members.get(i));
            if (withScores)
            {
                Scores.reply(out, scores[i], protocol);
            }
        }
    }

    /** Answer them flat, member then score, in every protocol (ZPOPMIN without a count). */
    void replyFlat(final ByteBuf out, final int protocol)
    {
        RespReplies.arrayHeader(out, 2 * size());
        for (int i = 0; i < size(); i++)
        {
            RespReplies.bulk(out, members.get(i));
            Scores.reply(out, scores[i], protocol);
        }
    }

    /** Answer them as pairs in every protocol (ZPOPMIN with a count in RESP3, ZMPOP). */
    void replyPairs(final ByteBuf out, final int protocol)
    {
        RespReplies.arrayHeader(out, size());
        for (int i = 0; i < size(); i++)
        {
            RespReplies.arrayHeader(out, 2);
            RespReplies.bulk(out, members.get(i));
            Scores.reply(out, scores[i], protocol);
        }
    }
}
