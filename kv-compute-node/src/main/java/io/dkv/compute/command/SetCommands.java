package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.client.collection.Collection;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's set commands over the client's collections (client/README.md, "Hashes and sets"), a member an element with
 * an empty value: each command one transaction, over one set or several (SMOVE, SINTER, SUNION, SDIFF and their STORE
 * forms read and write every key they name in it, whichever memory nodes hold them); inside EXEC, part of EXEC's.
 * Replies are built once the transaction has committed.
 */
final class SetCommands
{
    private static final int INTER = 0;
    private static final int UNION = 1;
    private static final int DIFF = 2;

    private final KeyStore base;
    private final KeyspaceEvents events;

    /**
     * @param base   the store outside EXEC.
     * @param events where the STORE forms tell what they did to their destination.
     */
    SetCommands(final KeyStore base, final KeyspaceEvents events)
    {
        this.base = base;
        this.events = events;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("sadd", -3, (session, args, out) -> RespReplies.integer(out,
                CollectionOps.countChanges(session.store(base), args, ValueKind.SET, Collection::add))),
            spec("srem", -3, (session, args, out) -> RespReplies.integer(out,
                CollectionOps.countChanges(session.store(base), args, ValueKind.SET, Collection::remove))),
            spec("smembers", 2, (session, args, out) -> combine(session, out, INTER, null, keys(args, 1))),
            spec("sismember", 3, (session, args, out) ->
                RespReplies.integer(out, read(session, args[1], set -> set.contains(args[2])) ? 1 : 0)),
            spec("smismember", -3, this::areMembers),
            spec("scard", 2, (session, args, out) ->
                RespReplies.integer(out, read(session, args[1], Collection::size))),
            spec("spop", -2, this::pop),
            spec("srandmember", -2, this::randomMember),
            spec("smove", 4, this::move),
            spec("sinter", -2, (session, args, out) -> combine(session, out, INTER, null, keys(args, 1))),
            spec("sunion", -2, (session, args, out) -> combine(session, out, UNION, null, keys(args, 1))),
            spec("sdiff", -2, (session, args, out) -> combine(session, out, DIFF, null, keys(args, 1))),
            spec("sinterstore", -3, (session, args, out) -> combine(session, out, INTER, args[1], keys(args, 2))),
            spec("sunionstore", -3, (session, args, out) -> combine(session, out, UNION, args[1], keys(args, 2))),
            spec("sdiffstore", -3, (session, args, out) -> combine(session, out, DIFF, args[1], keys(args, 2))),
            spec("sintercard", -3, this::interCard),
            spec("sscan", -3, (session, args, out) -> CollectionScan.scan(session.store(base), args, out,
                ValueKind.SET)));
    }

    private static List<byte[]> keys(final byte[][] args, final int from)
    {
        return Arrays.asList(args).subList(from, args.length);
    }

    private <T> T read(final Session session, final byte[] key, final Function<Collection, T> body)
    {
        return CollectionOps.read(session.store(base), key, ValueKind.SET, body);
    }

    private static Collection open(final KeyStore store, final byte[] key)
    {
        return CollectionOps.open(store, key, ValueKind.SET);
    }

    private void areMembers(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean[] members = read(session, args[1], set ->
        {
            final boolean[] found = new boolean[args.length - 2];
            for (int i = 2; i < args.length; i++)
            {
                found[i - 2] = set.contains(args[i]);
            }
            return found;
        });
        RespReplies.arrayHeader(out, members.length);
        for (final boolean member : members)
        {
            RespReplies.integer(out, member ? 1 : 0);
        }
    }

    /** SPOP key [count]: members taken at random and removed, in the one transaction. */
    private void pop(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final boolean counted = args.length == 3;
        if (counted && (!RespNumbers.isLong(args[2]) || RespNumbers.parseLong(args[2]) < 0))
        {
            // getPositiveLongFromObjectOrReply's message, for a count that is not a number too
            RespReplies.error(out, "ERR value is out of range, must be positive");
            return;
        }
        final long count = counted ? RespNumbers.parseLong(args[2]) : 1;
        final List<byte[]> popped = session.store(base).atomically(store ->
        {
            final Collection set = open(store, args[1]);
            final List<byte[]> taken = new ArrayList<>();
            if (count >= set.size())
            {
                set.forEach((member, value) -> taken.add(member));
                Collections.shuffle(taken);
                set.drop();
                return taken;
            }
            for (final byte[][] member : RandomElements.pick(set, count))
            {
                set.remove(member[0]);
                taken.add(member[0]);
            }
            set.write();
            return taken;
        });
        if (!counted)
        {
            RespReplies.bulkOrNull(out, popped.isEmpty() ? null : popped.getFirst(), session.protocol());
            return;
        }
        RespReplies.setHeader(out, popped.size(), session.protocol());
        popped.forEach(member -> RespReplies.bulk(out, member));
    }

    /** SRANDMEMBER key [count], as HRANDFIELD without values. */
    private void randomMember(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length == 2)
        {
            RespReplies.bulkOrNull(out, read(session, args[1], Collection::randomField), session.protocol());
            return;
        }
        if (args.length > 3)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        if (!RespNumbers.isLong(args[2]) || RespNumbers.parseLong(args[2]) == Long.MIN_VALUE)
        {
            RespReplies.error(out, RespNumbers.isLong(args[2]) ? "ERR value is out of range, value must between " +
                -Long.MAX_VALUE + " and " + Long.MAX_VALUE : Errors.NOT_INTEGER);
            return;
        }
        final long count = RespNumbers.parseLong(args[2]);
        final List<byte[][]> picked = read(session, args[1], set -> RandomElements.pick(set, count));
        RespReplies.arrayHeader(out, picked.size());
        picked.forEach(member -> RespReplies.bulk(out, member[0]));
    }

    /** SMOVE source destination member, as redis checks it: no source answers 0 before any type is checked. */
    private void move(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.integer(out, session.store(base).atomically(store ->
        {
            final Versioned source = store.readAny(args[1]);
            if (source == null)
            {
                return 0L;
            }
            final Collection from = open(store, args[1]);
            final Collection to = open(store, args[2]);
            if (Arrays.equals(args[1], args[2]))
            {
                return from.contains(args[3]) ? 1L : 0L;
            }
            if (!from.remove(args[3]))
            {
                return 0L;
            }
            from.write();
            to.add(args[3]);
            to.write();
            return 1L;
        }));
    }

    /**
     * SINTER, SUNION, SDIFF, SMEMBERS and the STORE forms: every key's type checked first (a missing key is an empty
     * set), then the result; a STORE form replaces its destination, whatever it held, and removes it when the result
     * is empty.
     */
    private void combine(final Session session, final ByteBuf out, final int op, final byte[] destination,
        final List<byte[]> keys)
    {
        final boolean[] removed = new boolean[1];
        final List<byte[]> result = session.store(base).atomically(store ->
        {
            final List<Collection> sets = new ArrayList<>(keys.size());
            for (final byte[] key : keys)
            {
                sets.add(open(store, key));
            }
            final List<byte[]> members = combine(op, sets);
            if (destination != null)
            {
                removed[0] = store.delete(destination);
                final Collection stored = open(store, destination);
                members.forEach(member -> stored.add(member));
                stored.write();
            }
            return members;
        });
        if (destination != null)
        {
            RespReplies.integer(out, result.size());
            if (!result.isEmpty())
            {
                events.sent(session, KeyspaceEvents.SET, op == INTER ? "sinterstore" : op == UNION ? "sunionstore" :
                    "sdiffstore", destination);
            }
            else if (removed[0])
            {
                events.sent(session, KeyspaceEvents.GENERIC, "del", destination);
            }
            return;
        }
        RespReplies.setHeader(out, result.size(), session.protocol());
        result.forEach(member -> RespReplies.bulk(out, member));
    }

    private static List<byte[]> combine(final int op, final List<Collection> sets)
    {
        final Set<ByteBuffer> members = new LinkedHashSet<>();
        if (op == UNION)
        {
            sets.forEach(set -> set.forEach((member, value) -> members.add(ByteBuffer.wrap(member))));
        }
        else if (op == DIFF)
        {
            sets.getFirst().forEach((member, value) -> members.add(ByteBuffer.wrap(member)));
            for (int i = 1; i < sets.size() && !members.isEmpty(); i++)
            {
                sets.get(i).forEach((member, value) -> members.remove(ByteBuffer.wrap(member)));
            }
        }
        else if (sets.stream().allMatch(Collection::exists))
        {
            // the smallest set's members, each looked up in the others (one segment read each)
            final Collection smallest = sets.stream().min((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
            smallest.forEach((member, value) ->
            {
                if (sets.stream().allMatch(set -> set == smallest || set.contains(member)))
                {
                    members.add(ByteBuffer.wrap(member));
                }
            });
        }
        final List<byte[]> list = new ArrayList<>(members.size());
        members.forEach(member -> list.add(member.array()));
        return list;
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit], its arguments checked as redis 7.0 checks them. */
    private void interCard(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long numKeys = RespNumbers.isLong(args[1]) ? RespNumbers.parseLong(args[1]) : 0;
        if (!RespNumbers.isLong(args[1]) || numKeys < 1)
        {
            // redis's message for a count that is not one, too
            RespReplies.error(out, "ERR numkeys should be greater than 0");
            return;
        }
        if (numKeys > args.length - 2)
        {
            RespReplies.error(out, "ERR Number of keys can't be greater than number of args");
            return;
        }
        long limit = 0;
        for (int j = 2 + (int)numKeys; j < args.length; j++)
        {
            if (is(args[j], "limit") && j + 1 < args.length)
            {
                j++;
                if (!RespNumbers.isLong(args[j]) || RespNumbers.parseLong(args[j]) < 0)
                {
                    RespReplies.error(out, "ERR LIMIT can't be negative");
                    return;
                }
                limit = RespNumbers.parseLong(args[j]);
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        final List<byte[]> keys = Arrays.asList(args).subList(2, 2 + (int)numKeys);
        final long most = limit;
        final long cardinality = session.store(base).atomically(store ->
        {
            final List<Collection> sets = new ArrayList<>(keys.size());
            for (final byte[] key : keys)
            {
                sets.add(open(store, key));
            }
            final long found = combine(INTER, sets).size();
            return most == 0 ? found : Math.min(found, most);
        });
        RespReplies.integer(out, cardinality);
    }
}
