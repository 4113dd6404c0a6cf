package io.dkv.compute.command;

import io.dkv.client.ordered.SortedSet;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;

import java.util.List;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's commands over a range of a sorted set, by rank, score or member (ZRANGE and its older forms, ZRANGESTORE,
 * ZCOUNT, ZLEXCOUNT, ZREMRANGEBY...), as redis's zrangeGenericCommand parses them: each range read as ranks
 * ({@link ScoreRanges}: a walk down the tree by score for each end), then the members in it visited in order, a leaf
 * at a time. Each command one transaction; replies built once it has committed.
 */
final class SortedSetRanges
{
    private static final int AUTO = 0;
    private static final int RANK = 1;
    private static final int SCORE = 2;
    private static final int LEX = 3;
    private static final String NOT_FLOAT_RANGE = "ERR min or max is not a float";
    private static final String NOT_LEX_RANGE = "ERR min or max not valid string range item";

    private final KeyStore base;
    private final KeyspaceEvents events;

    /**
     * @param base   the store outside EXEC.
     * @param events where ZRANGESTORE tells what it did to its destination.
     */
    SortedSetRanges(final KeyStore base, final KeyspaceEvents events)
    {
        this.base = base;
        this.events = events;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("zrange", -4, (session, args, out) -> range(session, args, out, 1, false, AUTO, false)),
            spec("zrangestore", -5, (session, args, out) -> range(session, args, out, 2, true, AUTO, false)),
            spec("zrevrange", -4, (session, args, out) -> range(session, args, out, 1, false, RANK, true)),
            spec("zrangebyscore", -4, (session, args, out) -> range(session, args, out, 1, false, SCORE, false)),
            spec("zrevrangebyscore", -4, (session, args, out) -> range(session, args, out, 1, false, SCORE, true)),
            spec("zrangebylex", -4, (session, args, out) -> range(session, args, out, 1, false, LEX, false)),
            spec("zrevrangebylex", -4, (session, args, out) -> range(session, args, out, 1, false, LEX, true)),
            spec("zcount", 4, (session, args, out) -> count(session, args, out, SCORE)),
            spec("zlexcount", 4, (session, args, out) -> count(session, args, out, LEX)),
            spec("zremrangebyrank", 4, (session, args, out) -> removeRange(session, args, out, RANK)),
            spec("zremrangebyscore", 4, (session, args, out) -> removeRange(session, args, out, SCORE)),
            spec("zremrangebylex", 4, (session, args, out) -> removeRange(session, args, out, LEX)));
    }

    /** A range as parsed: by rank (start, stop), by score or by member (min, max), before the store is read. */
    private record Range(int type, long start, long stop, Scores.Bound minScore, Scores.Bound maxScore,
        ScoreRanges.LexBound minLex, ScoreRanges.LexBound maxLex)
    {
        /** @return the range, or null when refused (the error written to {@code out}). */
        static Range parse(final int type, final byte[] min, final byte[] max, final ByteBuf out)
        {
            if (type == RANK)
            {
                if (!RespNumbers.isLong(min) || !RespNumbers.isLong(max))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return null;
                }
                return new Range(RANK, RespNumbers.parseLong(min), RespNumbers.parseLong(max), null, null, null, null);
            }
            if (type == SCORE)
            {
                final Scores.Bound low = Scores.bound(min);
                final Scores.Bound high = Scores.bound(max);
                if (low == null || high == null)
                {
                    RespReplies.error(out, NOT_FLOAT_RANGE);
                    return null;
                }
                return new Range(SCORE, 0, 0, low, high, null, null);
            }
            final ScoreRanges.LexBound low = ScoreRanges.LexBound.parse(min);
            final ScoreRanges.LexBound high = ScoreRanges.LexBound.parse(max);
            if (low == null || high == null)
            {
                RespReplies.error(out, NOT_LEX_RANGE);
                return null;
            }
            return new Range(LEX, 0, 0, null, null, low, high);
        }

        /** @return {first rank, end rank (exclusive)} in {@code set}, forward ranks whatever the direction. */
        long[] ranks(final SortedSet set, final boolean reverse)
        {
            return switch (type)
            {
                case RANK -> ScoreRanges.byRank(set.size(), start, stop, reverse);
                case SCORE -> ScoreRanges.byScore(set, minScore, maxScore);
                default -> ScoreRanges.byLex(set, minLex, maxLex);
            };
        }
    }

    /** Redis's zrangeGenericCommand: options, then the range, then the key. */
    private void range(final Session session, final byte[][] args, final ByteBuf out, final int keyAt,
        final boolean store, final int given, final boolean givenReverse)
    {
        int type = given;
        boolean reverse = givenReverse;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        for (int j = keyAt + 3; j < args.length; j++)
        {
            final int left = args.length - j - 1;
            if (!store && is(args[j], "withscores"))
            {
                withScores = true;
            }
            else if (is(args[j], "limit") && left >= 2)
            {
                if (!RespNumbers.isLong(args[j + 1]) || !RespNumbers.isLong(args[j + 2]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                offset = RespNumbers.parseLong(args[j + 1]);
                limit = RespNumbers.parseLong(args[j + 2]);
                j += 2;
            }
            else if (given == AUTO && !givenReverse && !reverse && is(args[j], "rev"))
            {
                reverse = true;
            }
            else if (type == AUTO && is(args[j], "bylex"))
            {
                type = LEX;
            }
            else if (type == AUTO && is(args[j], "byscore"))
            {
                type = SCORE;
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        type = type == AUTO ? RANK : type;
        if (limit != -1 && type == RANK)
        {
            RespReplies.error(out, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE " +
                "or BYLEX");
            return;
        }
        if (withScores && type == LEX)
        {
            RespReplies.error(out, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
            return;
        }
        final boolean swap = reverse && type != RANK;
        final Range range = Range.parse(type, args[swap ? keyAt + 2 : keyAt + 1], args[swap ? keyAt + 1 : keyAt + 2],
            out);
        if (range == null)
        {
            return;
        }
        final boolean backwards = reverse;
        final long skip = offset;
        final long most = limit;
        final ScoredMembers found = new ScoredMembers();
        final long stored = session.store(base).atomically(tx ->
        {
            found.clear();
            final SortedSet set = SortedSetCommands.open(tx, args[keyAt]);
            final long[] ranks = range.ranks(set, backwards);
            final long[] window = range.type() == RANK ? ranks : window(ranks, skip, most, backwards);
            set.forEach(window[0], window[1], backwards, (member, score) ->
            {
                found.add(member, score);
                return true;
            });
            return store ? SortedSetAlgebra.store(tx, args[1], found) : 0;
        });
        if (store)
        {
            RespReplies.integer(out, Math.max(0, stored));
            SortedSetAlgebra.stored(events, session, "zrangestore", args[1], stored);
        }
        else
        {
            found.reply(out, withScores, session.protocol());
        }
    }

    /** @return the ranks LIMIT offset count leaves of {@code ranks}, taken from the top when {@code reverse}. */
    private static long[] window(final long[] ranks, final long offset, final long limit, final boolean reverse)
    {
        final long length = ranks[1] - ranks[0];
        if (offset < 0 || offset >= length || limit == 0)
        {
            return new long[]{0, 0};
        }
        final long taken = limit < 0 ? length - offset : Math.min(limit, length - offset);
        return reverse ? new long[]{ranks[1] - offset - taken, ranks[1] - offset} :
            new long[]{ranks[0] + offset, ranks[0] + offset + taken};
    }

    private void count(final Session session, final byte[][] args, final ByteBuf out, final int type)
    {
        final Range range = Range.parse(type, args[2], args[3], out);
        if (range != null)
        {
            RespReplies.integer(out, session.store(base).atomically(tx ->
            {
                final long[] ranks = range.ranks(SortedSetCommands.open(tx, args[1]), false);
                return ranks[1] - ranks[0];
            }));
        }
    }

    private void removeRange(final Session session, final byte[][] args, final ByteBuf out, final int type)
    {
        final Range range = Range.parse(type, args[2], args[3], out);
        if (range != null)
        {
            RespReplies.integer(out, session.store(base).atomically(tx ->
            {
                final SortedSet set = SortedSetCommands.open(tx, args[1]);
                final long[] ranks = range.ranks(set, false);
                final long removed = set.removeRange(ranks[0], ranks[1]);
                set.write();
                return removed;
            }));
        }
    }
}
