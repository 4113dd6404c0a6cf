package io.dkv.compute.command;

import io.dkv.client.ordered.SortedSet;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's sorted set commands that add, remove, look up and pop members (client/README.md, "Sorted sets and lists"):
 * each command one transaction over the sorted set at its key (WRONGTYPE when the key holds another kind); inside
 * EXEC, part of EXEC's. Ranges are {@link SortedSetRanges}', the operations over several sets
 * {@link SortedSetAlgebra}'s. Arguments are checked before the store is read, as redis checks them; replies are built
 * once the transaction has committed.
 */
final class SortedSetCommands
{
    private static final int NX = 1;
    private static final int XX = 2;
    private static final int GT = 4;
    private static final int LT = 8;
    private static final int INCR = 16;
    private static final String NAN = "ERR resulting score is not a number (NaN)";
    private static final String NOT_FLOAT = "ERR value is not a valid float";

    private final KeyStore base;
    private final KeyspaceEvents events;

    /**
     * @param base   the store outside EXEC.
     * @param events where the STORE forms tell what they did to their destination.
     */
    SortedSetCommands(final KeyStore base, final KeyspaceEvents events)
    {
        this.base = base;
        this.events = events;
    }

    List<CommandSpec> commands()
    {
        final List<CommandSpec> commands = new ArrayList<>(List.of(
            spec("zadd", -4, (session, args, out) -> add(session, args, out, 0, false)),
            spec("zincrby", 4, (session, args, out) -> add(session, args, out, INCR, true)),
            spec("zrem", -3, this::remove),
            spec("zcard", 2, (session, args, out) -> RespReplies.integer(out, read(session, args[1], SortedSet::size))),
            spec("zscore", 3, (session, args, out) -> score(session, args[1], args[2], out)),
            spec("zmscore", -3, this::scores),
            spec("zrank", 3, (session, args, out) -> rank(session, args, out, false)),
            spec("zrevrank", 3, (session, args, out) -> rank(session, args, out, true)),
            spec("zpopmin", -2, (session, args, out) -> pop(session, args, out, false)),
            spec("zpopmax", -2, (session, args, out) -> pop(session, args, out, true)),
            spec("zmpop", -4, this::multiPop),
            spec("zrandmember", -2, this::randomMember),
            spec("zscan", -3, (session, args, out) -> SortedSetScan.scan(session.store(base), args, out))));
        commands.addAll(new SortedSetRanges(base, events).commands());
        commands.addAll(new SortedSetAlgebra(base, events).commands());
        return commands;
    }

    static SortedSet open(final KeyStore store, final byte[] key)
    {
        return SortedSet.open(store.transaction(), key, store.segmentBytes());
    }

    private <T> T read(final Session session, final byte[] key, final Function<SortedSet, T> body)
    {
        return session.store(base).atomically(store -> body.apply(open(store, key)));
    }

    /** ZADD and ZINCRBY (ZADD's INCR with one pair), as redis's zaddGenericCommand. */
    private void add(final Session session, final byte[][] args, final ByteBuf out, final int given,
        final boolean incrBy)
    {
        int flags = given;
        boolean changed = false;
        int at = 2;
        while (!incrBy && at < args.length)
        {
            final int flag = is(args[at], "nx") ? NX : is(args[at], "xx") ? XX : is(args[at], "gt") ? GT :
                is(args[at], "lt") ? LT : is(args[at], "incr") ? INCR : 0;
            if (flag == 0 && !is(args[at], "ch"))
            {
                break;
            }
            changed |= flag == 0;
            flags |= flag;
            at++;
        }
        final int pairs = args.length - at;
        if (pairs % 2 != 0 || pairs == 0)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        if ((flags & NX) != 0 && (flags & XX) != 0)
        {
            RespReplies.error(out, "ERR XX and NX options at the same time are not compatible");
            return;
        }
        if (((flags & (GT | LT)) != 0 && (flags & NX) != 0) || ((flags & GT) != 0 && (flags & LT) != 0))
        {
            RespReplies.error(out, "ERR GT, LT, and/or NX options at the same time are not compatible");
            return;
        }
        final boolean incr = (flags & INCR) != 0;
        if (incr && pairs > 2)
        {
            RespReplies.error(out, "ERR INCR option supports a single increment-element pair");
            return;
        }
        final double[] scores = new double[pairs / 2];
        for (int i = 0; i < scores.length; i++)
        {
            final Double score = Scores.parse(args[at + 2 * i]);
            if (score == null)
            {
                RespReplies.error(out, NOT_FLOAT);
                return;
            }
            scores[i] = score;
        }
        final int options = flags;
        final int first = at;
        final double[] result = new double[3];
        final boolean ok = session.store(base).atomically(store ->
        {
            final SortedSet set = open(store, args[1]);
            long added = 0;
            long updated = 0;
            long processed = 0;
            double last = 0;
            for (int i = 0; i < scores.length; i++)
            {
                final byte[] member = args[first + 2 * i + 1];
                double score = scores[i];
                final Double current = set.score(member);
                if (current == null)
                {
                    if ((options & XX) != 0)
                    {
                        continue;
                    }
                    set.put(member, score);
                    added++;
                }
                else
                {
                    if ((options & NX) != 0)
                    {
                        continue;
                    }
                    if (incr)
                    {
                        score += current;
                        if (Double.isNaN(score))
                        {
                            return false;
                        }
                    }
                    if (((options & LT) != 0 && score >= current) || ((options & GT) != 0 && score <= current))
                    {
                        continue;
                    }
                    if (score != current)
                    {
                        set.put(member, score);
                        updated++;
                    }
                }
                processed++;
                last = score;
            }
            set.write();
            result[0] = added;
            result[1] = updated;
            result[2] = processed == 0 ? Double.NaN : last;
            return true;
        });
        if (!ok)
        {
            RespReplies.error(out, NAN);
        }
        else if (incr)
        {
            if (Double.isNaN(result[2]))
            {
                RespReplies.nullReply(out, session.protocol());
            }
            else
            {
                Scores.reply(out, result[2], session.protocol());
            }
        }
        else
        {
            RespReplies.integer(out, (long)result[0] + (changed ? (long)result[1] : 0));
        }
    }

    private void remove(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.integer(out, session.store(base).atomically(store ->
        {
            final SortedSet set = open(store, args[1]);
            long removed = 0;
            for (int i = 2; i < args.length; i++)
            {
                removed += set.remove(args[i]) ? 1 : 0;
            }
            set.write();
            return removed;
        }));
    }

    private void score(final Session session, final byte[] key, final byte[] member, final ByteBuf out)
    {
        final Double score = read(session, key, set -> set.score(member));
        if (score == null)
        {
            RespReplies.nullReply(out, session.protocol());
        }
        else
        {
            Scores.reply(out, score, session.protocol());
        }
    }

    private void scores(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<Double> scores = read(session, args[1], set ->
        {
            final List<Double> found = new ArrayList<>();
            for (int i = 2; i < args.length; i++)
            {
                found.add(set.score(args[i]));
            }
            return found;
        });
        RespReplies.arrayHeader(out, scores.size());
        for (final Double score : scores)
        {
            if (score == null)
            {
                RespReplies.nullReply(out, session.protocol());
            }
            else
            {
                Scores.reply(out, score, session.protocol());
            }
        }
    }

    private void rank(final Session session, final byte[][] args, final ByteBuf out, final boolean reverse)
    {
        final long rank = read(session, args[1], set ->
        {
            final long forward = set.rank(args[2]);
            return forward < 0 || !reverse ? forward : set.size() - 1 - forward;
        });
        if (rank < 0)
        {
            RespReplies.nullReply(out, session.protocol());
        }
        else
        {
            RespReplies.integer(out, rank);
        }
    }

    /** ZPOPMIN and ZPOPMAX, as redis's zpopMinMaxCommand. */
    private void pop(final Session session, final byte[][] args, final ByteBuf out, final boolean max)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        long count = -1;
        if (args.length == 3)
        {
            count = RespNumbers.isLong(args[2]) ? RespNumbers.parseLong(args[2]) : Long.MIN_VALUE;
            if (count < 0)
            {
                RespReplies.error(out, "ERR value is out of range, must be positive");
                return;
            }
        }
        final long asked = count;
        final ScoredMembers popped = new ScoredMembers();
        final boolean found = session.store(base).atomically(store -> popFrom(store, args[1], max, asked, popped));
        if (!found || asked == 0)
        {
            RespReplies.arrayHeader(out, 0);
        }
        else if (session.protocol() >= 3 && asked != -1)
        {
            popped.replyPairs(out, session.protocol());
        }
        else
        {
            popped.replyFlat(out, session.protocol());
        }
    }

    /** @return false when the key holds nothing; else pops up to {@code count} (-1: one) members into {@code into}. */
    static boolean popFrom(final KeyStore store, final byte[] key, final boolean max, final long count,
        final ScoredMembers into)
    {
        into.clear();
        final SortedSet set = open(store, key);
        if (!set.exists())
        {
            return false;
        }
        final long take = Math.min(count == -1 ? 1 : count, set.size());
        for (long i = 0; i < take; i++)
        {
            set.forEach(0, set.size(), max, (member, score) ->
            {
                into.add(member, score);
                return false;
            });
            set.remove(into.members.getLast());
        }
        set.write();
        return true;
    }

    /** ZMPOP numkeys key... MIN|MAX [COUNT count], as redis's zmpopGenericCommand. */
    private void multiPop(final Session session, final byte[][] args, final ByteBuf out)
    {
        final MultiPopArguments parsed = MultiPopArguments.parse(args, 1, true, out);
        if (parsed == null || ServerCommands.refusedReserved(parsed.keys(), 0, parsed.keys().length, out))
        {
            return;
        }
        final boolean max = !parsed.first();
        final long asked = parsed.count();
        final byte[][] keys = parsed.keys();
        final ScoredMembers popped = new ScoredMembers();
        final byte[] from = session.store(base).atomically(store ->
        {
            for (final byte[] key : keys)
            {
                if (popFrom(store, key, max, asked, popped))
                {
                    return key;
                }
            }
            return null;
        });
        if (from == null)
        {
            RespReplies.nullArray(out, session.protocol());
            return;
        }
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, from);
        popped.replyPairs(out, session.protocol());
    }

    /** ZRANDMEMBER key [count [WITHSCORES]], as redis's zrandmemberCommand. */
    private void randomMember(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length == 2)
        {
            final ScoredMembers picked = new ScoredMembers();
            read(session, args[1], set -> SortedSetRandom.pick(set, 1, picked));
            if (picked.size() == 0)
            {
                RespReplies.nullReply(out, session.protocol());
            }
            else
            {
                RespReplies.bulk(out, picked.members.getFirst());
            }
            return;
        }
        final long count = RespNumbers.isLong(args[2]) ? RespNumbers.parseLong(args[2]) : Long.MIN_VALUE;
        if (count == Long.MIN_VALUE)
        {
            RespReplies.error(out, RespNumbers.isLong(args[2]) ? "ERR value is out of range" : Errors.NOT_INTEGER);
            return;
        }
        if (args.length > 4 || (args.length == 4 && !is(args[3], "withscores")))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final boolean withScores = args.length == 4;
        if (withScores && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2))
        {
            RespReplies.error(out, "ERR value is out of range");
            return;
        }
        final ScoredMembers picked = new ScoredMembers();
        read(session, args[1], set -> SortedSetRandom.pick(set, count, picked));
        picked.reply(out, withScores, session.protocol());
    }
}
