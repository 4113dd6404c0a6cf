package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.client.ordered.ElementList;
import io.dkv.client.ordered.SortedSet;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * SORT and SORT_RO over a list, a set or a sorted set, as redis 7.0's sortCommandGeneric answers them: options read by
 * {@link SortArguments}, BY and GET patterns by {@link SortPatterns}, the order {@link SortOrder}'s. The key sorted,
 * every key a BY or GET pattern names and STORE's destination are read and written in one transaction, whichever
 * memory nodes hold them (inside EXEC or a script, part of theirs): no write between the sort's reads shows in its
 * reply, and STORE replaces its destination with a list of the result, or removes it when the result is empty, at
 * once with the reads. The reply is built once the transaction has committed.
 *
 * <p>As in redis: a missing key sorts as an empty list; a BY pattern without {@code *} leaves lists and sorted sets
 * in their order (DESC reversing it) and sets in theirs, but a set is sorted ALPHA for STORE and for a script, so that
 * what is written or replicated is the same everywhere; LIMIT's offset and count are bounded by the elements, a
 * negative count meaning all. STORE tells of the destination's change (keyspace event {@code sortstore}, or
 * {@code del} when an empty result removed it); the blocked pops waiting on it are signalled by the table
 * ({@link BlockingCommands#readied}).
 */
final class SortCommand
{
    private static final byte[] EMPTY = new byte[0];

    private final KeyStore base;
    private final KeyspaceEvents events;

    /**
     * @param base   the store outside EXEC.
     * @param events where STORE's keyspace events go.
     */
    SortCommand(final KeyStore base, final KeyspaceEvents events)
    {
        this.base = base;
        this.events = events;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("sort", -2, (session, args, out) -> sort(session, args, out, false)),
            spec("sort_ro", -2, (session, args, out) -> sort(session, args, out, true)));
    }

    /** @return the destination a SORT request stores into (its last STORE), or null: none, or options refused. */
    static byte[] destination(final byte[][] args)
    {
        final SortArguments options = SortArguments.parse(args, false);
        return options.error() == null ? options.store() : null;
    }

    /** What one run found: an error to answer, or the values of the reply (null for GET's nil) or to store. */
    private record Sorted(String error, List<byte[]> values, boolean deleted)
    {
    }

    private void sort(final Session session, final byte[][] args, final ByteBuf out, final boolean readOnly)
    {
        final SortArguments options = SortArguments.parse(args, readOnly);
        if (options.error() != null)
        {
            RespReplies.error(out, options.error());
            return;
        }
        final byte[] destination = options.store();
        if (destination != null && ServerCommands.refusedReserved(new byte[][]{destination}, 0, 1, out))
        {
            return;
        }
        final boolean scripted = session.scripted();
        final Sorted sorted = session.store(base).atomically(store -> run(store, args[1], options, scripted));
        if (sorted.error() != null)
        {
            RespReplies.error(out, sorted.error());
            return;
        }
        if (destination != null)
        {
            RespReplies.integer(out, sorted.values().size());
            if (!sorted.values().isEmpty())
            {
                events.sent(session, KeyspaceEvents.LIST, "sortstore", destination);
            }
            else if (sorted.deleted())
            {
                events.sent(session, KeyspaceEvents.GENERIC, "del", destination);
            }
            return;
        }
        RespReplies.arrayHeader(out, sorted.values().size());
        for (final byte[] value : sorted.values())
        {
            RespReplies.bulkOrNull(out, value, session.protocol());
        }
    }

    /** The whole command, in the transaction {@code store} runs in. */
    private static Sorted run(final KeyStore store, final byte[] key, final SortArguments options,
        final boolean scripted)
    {
        final Versioned source = store.readAny(key);
        final int kind = source == null ? ValueKind.LIST : source.kind();
        if (kind != ValueKind.LIST && kind != ValueKind.SET && kind != ValueKind.ZSET)
        {
            return new Sorted(Errors.WRONGTYPE, List.of(), false);
        }
        boolean dontSort = options.dontSort();
        boolean alpha = options.alpha();
        byte[] by = options.by();
        if (dontSort && kind == ValueKind.SET && (options.store() != null || scripted))
        {
            dontSort = false;
            alpha = true;
            by = null;
        }
        final long size = source == null ? 0 : size(store, key, kind);
        long start = Math.min(Math.max(options.limitStart(), 0), size);
        final long count = Math.min(Math.max(options.limitCount(), -1), size);
        long end = count < 0 ? size - 1 : start + count - 1;
        if (start >= size)
        {
            start = size - 1;
            end = size - 2;
        }
        end = Math.min(end, size - 1);
        final SortOrder.Item[] items;
        if (dontSort && kind != ValueKind.SET)
        {
            // the range alone, in the key's own order: what is left of LIMIT then starts at 0
            items = end >= start ? range(store, key, kind, start, end, options.descending()) : new SortOrder.Item[0];
            if (end >= start)
            {
                end -= start;
                start = 0;
            }
        }
        else
        {
            items = all(store, key, kind, size);
        }
        if (!dontSort)
        {
            if (!weigh(store, items, by, alpha))
            {
                return new Sorted("ERR One or more scores can't be converted into double", List.of(), false);
            }
            final Comparator<SortOrder.Item> order = SortOrder.comparator(alpha, by != null,
                options.store() != null, options.descending());
            SortOrder.sort(items, order, by != null && (start != 0 || end != items.length - 1), start, end);
        }
        final List<byte[]> values = output(store, items, start, end, options.gets(), options.store() != null);
        return new Sorted(null, values, options.store() != null && replace(store, options.store(), values));
    }

    /**
     * Give each item what it is sorted by: its weight (numeric), or BY's value (ALPHA with BY).
     *
     * @return false when a weight is no number.
     */
    private static boolean weigh(final KeyStore store, final SortOrder.Item[] items, final byte[] by,
        final boolean alpha)
    {
        if (alpha && by == null)
        {
            // the elements are compared themselves
            return true;
        }
        if (by != null)
        {
            readAhead(store, List.of(by), items, 0, items.length - 1);
        }
        for (final SortOrder.Item item : items)
        {
            final byte[] value = by == null ? item.element : SortPatterns.lookup(store, by, item.element);
            if (value == null)
            {
                // BY names no value: weight 0, or first in an ALPHA sort
                continue;
            }
            if (alpha)
            {
                item.by = value;
                continue;
            }
            final Double weight = SortOrder.weight(value);
            if (weight == null)
            {
                return false;
            }
            item.score = weight;
        }
        return true;
    }

    /** @return the reply's values (or STORE's): each element from {@code start} to {@code end}, or what GETs name. */
    private static List<byte[]> output(final KeyStore store, final SortOrder.Item[] items, final long start,
        final long end, final List<byte[]> gets, final boolean storing)
    {
        final List<byte[]> values = new ArrayList<>((int)Math.max(0, (end - start + 1) * Math.max(1, gets.size())));
        readAhead(store, gets, items, start, end);
        for (long j = start; j <= end; j++)
        {
            final byte[] element = items[(int)j].element;
            if (gets.isEmpty())
            {
                values.add(element);
                continue;
            }
            for (final byte[] get : gets)
            {
                final byte[] value = SortPatterns.lookup(store, get, element);
                // a list has no nil: STORE writes an empty string where GET names no value
                values.add(value == null && storing ? EMPTY : value);
            }
        }
        return values;
    }

    /**
     * Read at once every key the patterns name for the items from {@code start} to {@code end}, where one reads them
     * all in flight at once (in a replayed run: one round, not one an item).
     */
    private static void readAhead(final KeyStore store, final List<byte[]> patterns, final SortOrder.Item[] items,
        final long start, final long end)
    {
        final Set<ByteBuffer> keys = new LinkedHashSet<>();
        for (long j = Math.max(0, start); j <= end && j < items.length; j++)
        {
            for (final byte[] pattern : patterns)
            {
                final byte[] key = SortPatterns.keyOf(pattern, items[(int)j].element);
                if (key != null)
                {
                    keys.add(ByteBuffer.wrap(key));
                }
            }
        }
        if (keys.size() > 1)
        {
            store.readAhead(keys.stream().map(ByteBuffer::array).toList());
        }
    }

    /**
     * STORE: the destination replaced, whatever it held, by a list of {@code values}; or removed when there are none.
     *
     * @return true when an empty result removed a destination that existed.
     */
    private static boolean replace(final KeyStore store, final byte[] destination, final List<byte[]> values)
    {
        if (values.isEmpty())
        {
            return store.readAny(destination) != null && store.delete(destination);
        }
        store.delete(destination);
        final ElementList list = ListCommands.open(store, destination);
        for (final byte[] value : values)
        {
            list.push(false, value);
        }
        list.write();
        return false;
    }

    private static long size(final KeyStore store, final byte[] key, final int kind)
    {
        return switch (kind)
        {
            case ValueKind.LIST -> ListCommands.open(store, key).size();
            case ValueKind.SET -> CollectionOps.open(store, key, ValueKind.SET).size();
            default -> SortedSetCommands.open(store, key).size();
        };
    }

    /** @return every element: a list's in order, a set's as its segments hold them, a sorted set's by score. */
    private static SortOrder.Item[] all(final KeyStore store, final byte[] key, final int kind, final long size)
    {
        final List<SortOrder.Item> items = new ArrayList<>((int)size);
        if (size > 0)
        {
            switch (kind)
            {
                case ValueKind.LIST -> ListCommands.open(store, key).forEach(0, size, false,
                    element -> items.add(new SortOrder.Item(element)));
                case ValueKind.SET -> CollectionOps.open(store, key, ValueKind.SET).forEach(
                    (member, value) -> items.add(new SortOrder.Item(member)));
                default -> SortedSetCommands.open(store, key).forEach(0, size, false,
                    (member, score) -> items.add(new SortOrder.Item(member)));
            }
        }
        return items.toArray(new SortOrder.Item[0]);
    }

    /**
     * @return a list's or a sorted set's elements from {@code start} to {@code end} of its order, or of the reverse
     * order ({@code descending}).
     */
    private static SortOrder.Item[] range(final KeyStore store, final byte[] key, final int kind, final long start,
        final long end, final boolean descending)
    {
        final List<SortOrder.Item> items = new ArrayList<>((int)(end - start + 1));
        if (kind == ValueKind.LIST)
        {
            final ElementList list = ListCommands.open(store, key);
            final long size = list.size();
            list.forEach(descending ? size - 1 - end : start, descending ? size - start : end + 1, descending,
                element -> items.add(new SortOrder.Item(element)));
        }
        else
        {
            final SortedSet set = SortedSetCommands.open(store, key);
            final long size = set.size();
            set.forEach(descending ? size - 1 - end : start, descending ? size - start : end + 1, descending,
                (member, score) -> items.add(new SortOrder.Item(member)));
        }
        return items.toArray(new SortOrder.Item[0]);
    }
}
