package io.dkv.compute.command;

import io.dkv.client.ordered.ElementList;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import org.agrona.collections.LongArrayList;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's list commands over one key: pushes and pops at either end, LLEN, LRANGE, LINDEX, LSET, LINSERT, LREM and
 * LTRIM, each one transaction over an {@link ElementList} (a counted B+tree of the client's), so that an element at an
 * index is one walk down its tree, a push or pop one path's change, and LTRIM or a pop of many drops whole subtrees;
 * inside EXEC, part of EXEC's transaction. Arguments are checked, and errors chosen, in the order redis 7.0's
 * t_list.c checks them (some before the key is looked up, some after). A list left with no element is removed, as in
 * redis. Replies are built only once the transaction has committed. LPOS and the commands that move elements between
 * lists are {@link ListMoves}'.
 */
final class ListCommands
{
    private static final String MUST_BE_POSITIVE = "ERR value is out of range, must be positive";
    private static final String NO_SUCH_KEY = "ERR no such key";
    private static final String OUT_OF_RANGE = "ERR index out of range";

    private final KeyStore base;

    /** @param base the store outside EXEC. */
    ListCommands(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        final List<CommandSpec> specs = new ArrayList<>(List.of(
            spec("lpush", -3, (session, args, out) -> push(session, args, out, true, false)),
            spec("rpush", -3, (session, args, out) -> push(session, args, out, false, false)),
            spec("lpushx", -3, (session, args, out) -> push(session, args, out, true, true)),
            spec("rpushx", -3, (session, args, out) -> push(session, args, out, false, true)),
            spec("lpop", -2, (session, args, out) -> pop(session, args, out, true)),
            spec("rpop", -2, (session, args, out) -> pop(session, args, out, false)),
            spec("llen", 2, (session, args, out) ->
                RespReplies.integer(out, read(session, args[1], ElementList::size))),
            spec("lrange", 4, this::range),
            spec("lindex", 3, this::index),
            spec("lset", 4, this::set),
            spec("linsert", 5, this::insert),
            spec("lrem", 4, this::remove),
            spec("ltrim", 4, this::trim)));
        specs.addAll(new ListMoves(base).commands());
        return specs;
    }

    /** @return the list at {@code key} in the transaction {@code store} runs in (WRONGTYPE at another kind). */
    static ElementList open(final KeyStore store, final byte[] key)
    {
        return ElementList.open(store.transaction(), key, store.segmentBytes());
    }

    private <T> T read(final Session session, final byte[] key, final Function<ElementList, T> body)
    {
        return session.store(base).atomically(store -> body.apply(open(store, key)));
    }

    /** @return the elements from index {@code from} up to {@code to}, or from {@code to - 1} down ({@code reverse}). */
    static List<byte[]> elements(final ElementList list, final long from, final long to, final boolean reverse)
    {
        final List<byte[]> elements = new ArrayList<>((int)Math.min(Math.max(0, to - from), 1024));
        list.forEach(from, to, reverse, elements::add);
        return elements;
    }

    /**
     * @return the range of LRANGE and LTRIM as redis's addListRangeReply and ltrimCommand make it of {@code start} and
     * {@code end} (negative from the tail, inclusive): first and last index, or null when it holds no element.
     */
    private static long[] span(final long start, final long end, final long length)
    {
        final long first = Math.max(0, start < 0 ? length + start : start);
        final long last = end < 0 ? length + end : end;
        if (first > last || first >= length)
        {
            return null;
        }
        return new long[]{first, Math.min(last, length - 1)};
    }

    /** LPUSH, RPUSH, LPUSHX, RPUSHX: the elements pushed one after another; the list's length after. */
    private void push(final Session session, final byte[][] args, final ByteBuf out, final boolean head,
        final boolean onlyIfExists)
    {
        RespReplies.integer(out, session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            if (onlyIfExists && !list.exists())
            {
                return 0L;
            }
            for (int i = 2; i < args.length; i++)
            {
                list.push(head, args[i]);
            }
            list.write();
            return list.size();
        }));
    }

    /**
     * LPOP and RPOP key [count]: without a count an element or null; with one an array (empty for 0), or a null array
     * for no key. A count is checked before the key, 0 after it.
     */
    private void pop(final Session session, final byte[][] args, final ByteBuf out, final boolean head)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, Errors.arity(head ? "lpop" : "rpop"));
            return;
        }
        final boolean counted = args.length == 3;
        if (counted && (!RespNumbers.isLong(args[2]) || RespNumbers.parseLong(args[2]) < 0))
        {
            // getPositiveLongFromObjectOrReply's message, for a count that is not a number too
            RespReplies.error(out, MUST_BE_POSITIVE);
            return;
        }
        final long count = counted ? RespNumbers.parseLong(args[2]) : 1;
        final List<byte[]> popped = session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            return list.exists() ? popRange(list, head, count) : null;
        });
        if (popped == null)
        {
            if (counted)
            {
                RespReplies.nullArray(out, session.protocol());
            }
            else
            {
                RespReplies.nullReply(out, session.protocol());
            }
            return;
        }
        if (!counted)
        {
            RespReplies.bulk(out, popped.getFirst());
            return;
        }
        bulks(out, popped);
    }

    /**
     * @return up to {@code count} elements popped from the head or the tail of a list that exists, in the order they
     * were popped: one range read and one range removed, the list written.
     */
    static List<byte[]> popRange(final ElementList list, final boolean head, final long count)
    {
        if (count == 0)
        {
            return List.of();
        }
        final long size = list.size();
        final long taken = Math.min(count, size);
        final long from = head ? 0 : size - taken;
        final List<byte[]> popped = taken == 1 ? List.of(list.pop(head)) : elements(list, from, from + taken, !head);
        if (taken > 1)
        {
            list.removeRange(from, from + taken);
        }
        list.write();
        return popped;
    }

    static void bulks(final ByteBuf out, final List<byte[]> elements)
    {
        RespReplies.arrayHeader(out, elements.size());
        elements.forEach(element -> RespReplies.bulk(out, element));
    }

    /** LRANGE key start stop: indexes checked before the key; a walk down to the first, then along the leaves. */
    private void range(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]) || !RespNumbers.isLong(args[3]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long start = RespNumbers.parseLong(args[2]);
        final long end = RespNumbers.parseLong(args[3]);
        bulks(out, read(session, args[1], list ->
        {
            final long[] span = span(start, end, list.size());
            return span == null ? List.of() : elements(list, span[0], span[1] + 1, false);
        }));
    }

    /** @return the index as redis takes it (negative from the tail) in a list of {@code size}, or -1 outside it. */
    private static long position(final byte[] index, final long size)
    {
        final long at = RespNumbers.parseLong(index);
        final long from = at < 0 ? size + at : at;
        return from >= 0 && from < size ? from : -1;
    }

    /** LINDEX key index: the key looked up before the index is read; null outside the list. */
    private void index(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean valid = RespNumbers.isLong(args[2]);
        final Object found = read(session, args[1], list ->
        {
            if (!list.exists())
            {
                return null;
            }
            if (!valid)
            {
                return Errors.NOT_INTEGER;
            }
            final long at = position(args[2], list.size());
            return at < 0 ? null : list.get(at);
        });
        if (found instanceof String error)
        {
            RespReplies.error(out, error);
            return;
        }
        RespReplies.bulkOrNull(out, (byte[])found, session.protocol());
    }

    /** LSET key index element: no key, then the index's errors, as redis checks them. */
    private void set(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean valid = RespNumbers.isLong(args[2]);
        final String error = session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            if (!list.exists())
            {
                return NO_SUCH_KEY;
            }
            if (!valid)
            {
                return Errors.NOT_INTEGER;
            }
            final long at = position(args[2], list.size());
            if (at < 0)
            {
                return OUT_OF_RANGE;
            }
            list.set(at, args[3]);
            list.write();
            return null;
        });
        if (error != null)
        {
            RespReplies.error(out, error);
            return;
        }
        RespReplies.ok(out);
    }

    /** @return the index of the first element equal to {@code element}, from the head, or -1. */
    private static long indexOf(final ElementList list, final byte[] element)
    {
        final long[] at = {0, -1};
        list.forEach(0, list.size(), false, candidate ->
        {
            if (Arrays.equals(candidate, element))
            {
                at[1] = at[0];
                return false;
            }
            at[0]++;
            return true;
        });
        return at[1];
    }

    /** LINSERT key BEFORE|AFTER pivot element: the list's length, 0 for no key, -1 for no pivot. */
    private void insert(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean after = is(args[2], "after");
        if (!after && !is(args[2], "before"))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        RespReplies.integer(out, session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            if (!list.exists())
            {
                return 0L;
            }
            final long pivot = indexOf(list, args[3]);
            if (pivot < 0)
            {
                return -1L;
            }
            list.insert(after ? pivot + 1 : pivot, args[4]);
            list.write();
            return list.size();
        }));
    }

    /** LREM key count element: from the head (count > 0), from the tail (< 0) or all (0); how many it removed. */
    private void remove(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long count = RespNumbers.parseLong(args[2]);
        final boolean fromTail = count < 0;
        // as redis's -count: Long.MIN_VALUE stays negative, which no number of removals equals (all go)
        final long most = fromTail ? -count : count;
        RespReplies.integer(out, session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            final long size = list.size();
            final LongArrayList found = new LongArrayList();
            final long[] at = {fromTail ? size - 1 : 0};
            list.forEach(0, size, fromTail, element ->
            {
                if (Arrays.equals(element, args[3]))
                {
                    found.addLong(at[0]);
                }
                at[0] += fromTail ? -1 : 1;
                return most == 0 || found.size() != most;
            });
            // from the highest index down, so that each removal leaves the others' indexes as they were
            for (int i = 0; i < found.size(); i++)
            {
                list.removeAt(found.getLong(fromTail ? i : found.size() - 1 - i));
            }
            list.write();
            return (long)found.size();
        }));
    }

    /** LTRIM key start stop: the list keeps the range LRANGE would answer; what is outside goes a range at a time. */
    private void trim(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]) || !RespNumbers.isLong(args[3]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long start = RespNumbers.parseLong(args[2]);
        final long end = RespNumbers.parseLong(args[3]);
        session.store(base).atomically(store ->
        {
            final ElementList list = open(store, args[1]);
            // a WATCH of the list sees LTRIM as a change, whatever it removed, as redis's does
            list.touch();
            final long size = list.size();
            final long[] span = span(start, end, size);
            if (span == null)
            {
                list.removeRange(0, size);
            }
            else
            {
                list.removeRange(span[1] + 1, size);
                list.removeRange(0, span[0]);
            }
            list.write();
            return null;
        });
        RespReplies.ok(out);
    }
}
