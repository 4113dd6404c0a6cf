package io.dkv.compute.command;

import io.dkv.client.ordered.ElementList;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import org.agrona.collections.LongArrayList;

import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's list commands that search a list or move elements between lists: LPOS, LMOVE, RPOPLPUSH and LMPOP, apart
 * from {@link ListCommands} for their options' parsing. A command over two keys (LMOVE) or several (LMPOP) reads and
 * writes them all in one transaction, whichever memory nodes hold them, so an element moved is never in both lists
 * nor in neither. Options and errors as redis 7.0's t_list.c checks them, in its order. The blocking forms are not
 * served.
 */
final class ListMoves
{
    private static final String RANK_ZERO = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the " +
        "second ... or use negative to start from the end of the list";

    private final KeyStore base;

    /** @param base the store outside EXEC. */
    ListMoves(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("lpos", -3, this::position),
            spec("lmove", 5, this::move),
            spec("rpoplpush", 3, (session, args, out) ->
                RespReplies.bulkOrNull(out, move(session.store(base), args[1], args[2], false, true),
                    session.protocol())),
            spec("lmpop", -4, this::multiPop));
    }

    /**
     * LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]: the indexes of matches, from the head or (a
     * negative rank) the tail, scanning at most MAXLEN elements; every option checked before the key.
     */
    private void position(final Session session, final byte[][] args, final ByteBuf out)
    {
        long rank = 1;
        long count = -1;
        long maxLength = 0;
        for (int j = 3; j < args.length; j++)
        {
            final boolean more = j + 1 < args.length;
            if (is(args[j], "rank") && more)
            {
                j++;
                if (!RespNumbers.isLong(args[j]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                rank = RespNumbers.parseLong(args[j]);
                if (rank == 0)
                {
                    RespReplies.error(out, RANK_ZERO);
                    return;
                }
            }
            else if (is(args[j], "count") && more)
            {
                j++;
                count = RespNumbers.isLong(args[j]) ? RespNumbers.parseLong(args[j]) : -1;
                if (count < 0)
                {
                    RespReplies.error(out, "ERR COUNT can't be negative");
                    return;
                }
            }
            else if (is(args[j], "maxlen") && more)
            {
                j++;
                maxLength = RespNumbers.isLong(args[j]) ? RespNumbers.parseLong(args[j]) : -1;
                if (maxLength < 0)
                {
                    RespReplies.error(out, "ERR MAXLEN can't be negative");
                    return;
                }
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        final boolean fromTail = rank < 0;
        // as redis's -rank: Long.MIN_VALUE stays negative, so every match is at or past the rank
        final long first = fromTail ? -rank : rank;
        final long most = count;
        final long scanned = maxLength;
        final LongArrayList found = session.store(base).atomically(store ->
        {
            final ElementList list = ListCommands.open(store, args[1]);
            return list.exists() ? matches(list, args[2], fromTail, first, most, scanned) : null;
        });
        if (count == -1)
        {
            if (found == null || found.isEmpty())
            {
                RespReplies.nullReply(out, session.protocol());
            }
            else
            {
                RespReplies.integer(out, found.getLong(0));
            }
            return;
        }
        RespReplies.arrayHeader(out, found == null ? 0 : found.size());
        for (int i = 0; found != null && i < found.size(); i++)
        {
            RespReplies.integer(out, found.getLong(i));
        }
    }

    /** @return LPOS's matches: from the {@code rank}th on, {@code count} of them (-1: one, 0: all). */
    private static LongArrayList matches(final ElementList list, final byte[] element, final boolean fromTail,
        final long rank, final long count, final long maxLength)
    {
        final long size = list.size();
        final long scanned = maxLength == 0 ? size : Math.min(maxLength, size);
        final LongArrayList found = new LongArrayList();
        final long[] seen = {0, 0};
        list.forEach(fromTail ? size - scanned : 0, fromTail ? size : scanned, fromTail, candidate ->
        {
            final long index = seen[0]++;
            if (!Arrays.equals(candidate, element))
            {
                return true;
            }
            final long matches = ++seen[1];
            if (matches < rank)
            {
                return true;
            }
            found.addLong(fromTail ? size - index - 1 : index);
            // redis's test, overflow and all (a rank of Long.MIN_VALUE)
            return count != -1 && (count == 0 || matches - rank + 1 < count);
        });
        return found;
    }

    /** @return LEFT as true (the head), RIGHT as false, or null for anything else. */
    private static Boolean side(final byte[] arg)
    {
        return is(arg, "left") ? Boolean.TRUE : is(arg, "right") ? Boolean.FALSE : null;
    }

    /** LMOVE source destination LEFT|RIGHT LEFT|RIGHT. */
    private void move(final Session session, final byte[][] args, final ByteBuf out)
    {
        final Boolean from = side(args[3]);
        final Boolean to = side(args[4]);
        if (from == null || to == null)
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        RespReplies.bulkOrNull(out, move(session.store(base), args[1], args[2], from, to), session.protocol());
    }

    /**
     * @return the element popped from {@code source} and pushed onto {@code destination} in one transaction, or null
     * when there is no source (whatever the destination holds, as in redis). The same key twice rotates the list.
     */
    byte[] move(final KeyStore through, final byte[] source, final byte[] destination, final boolean fromHead,
        final boolean toHead)
    {
        return through.atomically(store ->
        {
            final ElementList from = ListCommands.open(store, source);
            if (!from.exists())
            {
                return null;
            }
            final boolean same = Arrays.equals(source, destination);
            final ElementList to = same ? from : ListCommands.open(store, destination);
            final byte[] element = from.pop(fromHead);
            to.push(toHead, element);
            from.write();
            if (!same)
            {
                to.write();
            }
            return element;
        });
    }

    /** What LMPOP popped: the key and its elements. */
    private record Popped(byte[] key, List<byte[]> elements)
    {
    }

    /**
     * LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: up to count elements from the first of the keys that holds
     * a list, with its name; a null array when none does. A key of another kind before it is WRONGTYPE.
     */
    private void multiPop(final Session session, final byte[][] args, final ByteBuf out)
    {
        final MultiPopArguments parsed = MultiPopArguments.parse(args, 1, false, out);
        if (parsed == null || ServerCommands.refusedReserved(parsed.keys(), 0, parsed.keys().length, out))
        {
            return;
        }
        final boolean head = parsed.first();
        final long most = parsed.count();
        final byte[][] keys = parsed.keys();
        final Popped popped = session.store(base).atomically(store ->
        {
            for (final byte[] key : keys)
            {
                final ElementList list = ListCommands.open(store, key);
                if (list.exists())
                {
                    return new Popped(key, ListCommands.popRange(list, head, most));
                }
            }
            return null;
        });
        if (popped == null)
        {
            RespReplies.nullArray(out, session.protocol());
            return;
        }
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, popped.key());
        ListCommands.bulks(out, popped.elements());
    }
}
