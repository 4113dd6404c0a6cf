package io.dkv.compute.command;

import io.dkv.client.WrongKindException;
import io.dkv.client.collection.Collection;
import io.dkv.client.ordered.SortedSet;
import io.dkv.client.txn.LogicalValue;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, as redis's zunionInterDiffGenericCommand: over sorted sets
 * and sets (a set's members score 1), weighted and aggregated, every key read (and the destination written) in one
 * transaction, whichever memory nodes hold them. The result is sorted by score, then member, before it is answered or
 * stored.
 */
final class SortedSetAlgebra
{
    private static final int UNION = 0;
    private static final int INTER = 1;
    private static final int DIFF = 2;
    private static final int SUM = 0;
    private static final int MIN = 1;
    private static final int MAX = 2;
    private static final Comparator<Object[]> BY_SCORE = (a, b) ->
    {
        final double x = (double)a[1];
        final double y = (double)b[1];
        return x < y ? -1 : x > y ? 1 : Arrays.compareUnsigned((byte[])a[0], (byte[])b[0]);
    };

    /** What {@link #store} answers when it stored nothing and removed what the destination held. */
    static final long REMOVED = -1;

    private final KeyStore base;
    private final KeyspaceEvents events;

    /**
     * @param base   the store outside EXEC.
     * @param events where the STORE forms tell what they did to their destination.
     */
    SortedSetAlgebra(final KeyStore base, final KeyspaceEvents events)
    {
        this.base = base;
        this.events = events;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("zunionstore", -4, (session, args, out) -> combine(session, args, out, UNION, true, false)),
            spec("zinterstore", -4, (session, args, out) -> combine(session, args, out, INTER, true, false)),
            spec("zdiffstore", -4, (session, args, out) -> combine(session, args, out, DIFF, true, false)),
            spec("zunion", -3, (session, args, out) -> combine(session, args, out, UNION, false, false)),
            spec("zinter", -3, (session, args, out) -> combine(session, args, out, INTER, false, false)),
            spec("zdiff", -3, (session, args, out) -> combine(session, args, out, DIFF, false, false)),
            spec("zintercard", -3, (session, args, out) -> combine(session, args, out, INTER, false, true)));
    }

    /** One input: a sorted set, a set (every member scoring 1), or nothing; with its weight. */
    private record Source(SortedSet sorted, Collection set, double weight)
    {
        long size()
        {
            return sorted != null ? sorted.size() : set != null ? set.size() : 0;
        }

        Double find(final byte[] member)
        {
            return sorted != null ? sorted.score(member) : set != null && set.contains(member) ? 1.0 : null;
        }

        void forEach(final java.util.function.ObjDoubleConsumer<byte[]> visitor)
        {
            if (sorted != null)
            {
                sorted.forEach(0, sorted.size(), false, (member, score) ->
                {
                    visitor.accept(member, score);
                    return true;
                });
            }
            else if (set != null)
            {
                set.forEach((member, value) -> visitor.accept(member, 1.0));
            }
        }
    }

    private void combine(final Session session, final byte[][] args, final ByteBuf out, final int op,
        final boolean store, final boolean cardinality)
    {
        final int numkeysAt = store ? 2 : 1;
        if (!RespNumbers.isLong(args[numkeysAt]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long keys = RespNumbers.parseLong(args[numkeysAt]);
        if (keys < 1)
        {
            RespReplies.error(out, "ERR at least 1 input key is needed for '" +
                new String(args[0], java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT) +
                "' command");
            return;
        }
        if (keys > args.length - (numkeysAt + 1))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final int n = (int)keys;
        if (ServerCommands.refusedReserved(args, numkeysAt + 1, numkeysAt + 1 + n, out))
        {
            return;
        }
        final double[] weights = new double[n];
        Arrays.fill(weights, 1.0);
        int aggregate = SUM;
        boolean withScores = false;
        long limit = 0;
        String refused = null;
        int j = numkeysAt + 1 + n;
        while (j < args.length && refused == null)
        {
            final int remaining = args.length - j;
            if (op != DIFF && !cardinality && remaining >= n + 1 && is(args[j], "weights"))
            {
                j++;
                for (int i = 0; i < n && refused == null; i++, j++)
                {
                    final Double weight = Scores.parse(args[j]);
                    if (weight == null)
                    {
                        refused = "ERR weight value is not a float";
                    }
                    else
                    {
                        weights[i] = weight;
                    }
                }
            }
            else if (op != DIFF && !cardinality && remaining >= 2 && is(args[j], "aggregate"))
            {
                aggregate = is(args[j + 1], "sum") ? SUM : is(args[j + 1], "min") ? MIN : is(args[j + 1], "max") ?
                    MAX : -1;
                refused = aggregate < 0 ? Errors.SYNTAX : null;
                j += 2;
            }
            else if (!store && !cardinality && is(args[j], "withscores"))
            {
                withScores = true;
                j++;
            }
            else if (cardinality && remaining >= 2 && is(args[j], "limit"))
            {
                final long given = RespNumbers.isLong(args[j + 1]) ? RespNumbers.parseLong(args[j + 1]) :
                    Long.MIN_VALUE;
                // redis answers this for any LIMIT that is not a count, a number or not
                refused = given < 0 ? "ERR LIMIT can't be negative" : null;
                limit = given;
                j += 2;
            }
            else
            {
                refused = Errors.SYNTAX;
            }
        }
        final String error = refused;
        final int how = aggregate;
        final long most = limit;
        final List<Object[]> result = new ArrayList<>();
        final long answer = session.store(base).atomically(tx ->
        {
            result.clear();
            final List<Source> sources = new ArrayList<>(n);
            for (int i = 0; i < n; i++)
            {
                sources.add(source(tx, args[numkeysAt + 1 + i], weights[i]));
            }
            if (error != null)
            {
                return 0L;
            }
            if (op != DIFF)
            {
                sources.sort(Comparator.comparingLong(Source::size));
            }
            final long count = compute(op, how, sources, cardinality ? most : -1, result);
            if (cardinality)
            {
                return count;
            }
            result.sort(BY_SCORE);
            if (!store)
            {
                return 0L;
            }
            final ScoredMembers members = new ScoredMembers();
            result.forEach(element -> members.add((byte[])element[0], (double)element[1]));
            return store(tx, args[1], members);
        });
        if (error != null)
        {
            RespReplies.error(out, error);
        }
        else if (store)
        {
            RespReplies.integer(out, Math.max(0, answer));
            stored(events, session, op == UNION ? "zunionstore" : op == INTER ? "zinterstore" : "zdiffstore",
                args[1], answer);
        }
        else if (cardinality)
        {
            RespReplies.integer(out, answer);
        }
        else
        {
            final ScoredMembers members = new ScoredMembers();
            result.forEach(element -> members.add((byte[])element[0], (double)element[1]));
            members.reply(out, withScores, session.protocol());
        }
    }

    private static Source source(final KeyStore tx, final byte[] key, final double weight)
    {
        final LogicalValue read = tx.transaction().read(key);
        if (read == null)
        {
            return new Source(null, null, weight);
        }
        if (read.kind() == ValueKind.ZSET)
        {
            return new Source(SortedSetCommands.open(tx, key), null, weight);
        }
        if (read.kind() == ValueKind.SET)
        {
            return new Source(null, Collection.open(tx.transaction(), key, ValueKind.SET, tx.segmentBytes()), weight);
        }
        throw new WrongKindException(key, read.kind(), ValueKind.ZSET);
    }

    /** @return the members of the result (into {@code result} as {member, score}), or their count at most limit. */
    private static long compute(final int op, final int aggregate, final List<Source> sources, final long limit,
        final List<Object[]> result)
    {
        final Source first = sources.getFirst();
        if (op == INTER)
        {
            final long[] count = {0};
            if (first.size() > 0)
            {
                first.forEach((member, score) ->
                {
                    if (limit > 0 && count[0] >= limit)
                    {
                        return;
                    }
                    double total = weighted(first.weight(), score);
                    for (int i = 1; i < sources.size(); i++)
                    {
                        final Double found = sources.get(i).find(member);
                        if (found == null)
                        {
                            return;
                        }
                        total = aggregate(total, found * sources.get(i).weight(), aggregate);
                    }
                    count[0]++;
                    if (limit < 0)
                    {
                        result.add(new Object[]{member, total});
                    }
                });
            }
            return count[0];
        }
        if (op == UNION)
        {
            final Map<ByteBuffer, Object[]> union = new LinkedHashMap<>();
            for (final Source source : sources)
            {
                source.forEach((member, score) ->
                {
                    final double value = weighted(source.weight(), score);
                    final Object[] seen = union.get(ByteBuffer.wrap(member));
                    if (seen == null)
                    {
                        union.put(ByteBuffer.wrap(member), new Object[]{member, value});
                    }
                    else
                    {
                        seen[1] = aggregate((double)seen[1], value, aggregate);
                    }
                });
            }
            result.addAll(union.values());
            return result.size();
        }
        first.forEach((member, score) ->
        {
            for (int i = 1; i < sources.size(); i++)
            {
                if (sources.get(i).find(member) != null)
                {
                    return;
                }
            }
            result.add(new Object[]{member, score});
        });
        return result.size();
    }

    private static double weighted(final double weight, final double score)
    {
        final double value = weight * score;
        return Double.isNaN(value) ? 0 : value;
    }

    private static double aggregate(final double target, final double value, final int aggregate)
    {
        if (aggregate == SUM)
        {
            final double sum = target + value;
            return Double.isNaN(sum) ? 0 : sum;
        }
        return aggregate == MIN ? (value < target ? value : target) : (value > target ? value : target);
    }

    /**
     * Replace whatever {@code destination} holds by a sorted set of {@code members} (already in order), or remove it
     * when there is none, as redis's STORE forms do.
     *
     * @return the members stored; {@link #REMOVED} when none and the destination held something.
     */
    static long store(final KeyStore tx, final byte[] destination, final ScoredMembers members)
    {
        final boolean removed = tx.delete(destination);
        if (members.size() == 0)
        {
            return removed ? REMOVED : 0;
        }
        final SortedSet set = SortedSetCommands.open(tx, destination);
        for (int i = 0; i < members.size(); i++)
        {
            set.put(members.members.get(i), members.score(i));
        }
        set.write();
        return members.size();
    }

    /**
     * The keyspace event of a STORE form once it committed, as redis's: its own on the destination when it stored
     * something, a {@code del} when it only removed what the destination held.
     *
     * @param stored what {@link #store} answered.
     */
    static void stored(final KeyspaceEvents events, final Session session, final String event,
        final byte[] destination, final long stored)
    {
        if (stored > 0)
        {
            events.sent(session, KeyspaceEvents.ZSET, event, destination);
        }
        else if (stored == REMOVED)
        {
            events.sent(session, KeyspaceEvents.GENERIC, "del", destination);
        }
    }
}
