package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.collection.Composites;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.client.txn.Transaction;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * The keyspace as a whole: SCAN, KEYS, DBSIZE, RANDOMKEY, FLUSHALL, FLUSHDB, and the commands on a key whatever its
 * value (TYPE, UNLINK, TOUCH). Scans and flushes walk every memory node's index through the client's scan
 * (client/README.md, "Scans and flushes"), so they run as themselves inside EXEC too: they are not part of its
 * transaction. Every key is a string until dkv has other types.
 */
final class KeyspaceCommands
{
    /** Keys a step of KEYS asks for: KEYS answers once the whole scan is over. */
    private static final int KEYS_STEP = 1024;
    private static final int NO_SUCH_KEY = 0;
    private static final int KEPT = 1;
    private static final int MOVED = 2;

    private final KeyStore base;
    private final KvClient client;
    private final LongStringWrites longWrites;

    KeyspaceCommands(final KeyStore base, final KvClient client, final LongStringWrites longWrites)
    {
        this.base = base;
        this.client = client;
        this.longWrites = longWrites;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("scan", -2, this::scan),
            spec("keys", 2, this::keys),
            spec("dbsize", 1, (session, args, out) -> RespReplies.integer(out, client.countKeys())),
            spec("randomkey", 1, (session, args, out) ->
                RespReplies.bulkOrNull(out, client.randomKey(), session.protocol())),
            spec("flushall", -1, this::flush),
            spec("flushdb", -1, this::flush),
            spec("type", 2, (session, args, out) -> type(session.store(base).readAny(args[1]), out)),
            spec("rename", 3, (session, args, out) -> rename(session, args, out, false)),
            spec("renamenx", 3, (session, args, out) -> rename(session, args, out, true)),
            spec("copy", -3, this::copy),
            spec("touch", -2, this::touch));
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type], its options checked as redis 7.0 checks them. */
    private void scan(final Session session, final byte[][] args, final ByteBuf out)
    {
        final long cursor = RespNumbers.parseLong(args[1]);
        if (!RespNumbers.isLong(args[1]) || !ScanCursor.isValid(cursor))
        {
            RespReplies.error(out, "ERR invalid cursor");
            return;
        }
        long count = 10;
        KeyPattern pattern = null;
        String type = null;
        for (int i = 2; i < args.length; i += 2)
        {
            if (i + 1 >= args.length)
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
            if (CommandTable.is(args[i], "count"))
            {
                count = RespNumbers.parseLong(args[i + 1]);
                if (!RespNumbers.isLong(args[i + 1]))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                if (count < 1)
                {
                    RespReplies.error(out, Errors.SYNTAX);
                    return;
                }
            }
            else if (CommandTable.is(args[i], "match"))
            {
                final KeyPattern given = KeyPattern.of(args[i + 1]);
                pattern = given.matchesEverything() && args[i + 1].length == 1 ? null : given;
            }
            else if (CommandTable.is(args[i], "type"))
            {
                type = CommandTable.lowerCase(args[i + 1]);
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        final ScanPage page = client.scan(cursor, (int)Math.min(count, Integer.MAX_VALUE), pattern);
        RespReplies.arrayHeader(out, 2);
        RespReplies.bulk(out, Long.toString(page.cursor()));
        final List<byte[]> keys = type == null ? page.keys() : ofType(session.store(base), page.keys(), type);
        RespReplies.arrayHeader(out, keys.size());
        for (final byte[] key : keys)
        {
            RespReplies.bulk(out, key);
        }
    }

    /** Every key the pattern matches: a whole scan, answered at its end. */
    private void keys(final Session session, final byte[][] args, final ByteBuf out)
    {
        final KeyPattern given = KeyPattern.of(args[1]);
        final KeyPattern pattern = given.matchesEverything() && args[1].length == 1 ? null : given;
        final List<byte[]> keys = new ArrayList<>();
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scan(cursor, KEYS_STEP, pattern);
            keys.addAll(page.keys());
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        RespReplies.arrayHeader(out, keys.size());
        for (final byte[] key : keys)
        {
            RespReplies.bulk(out, key);
        }
    }

    /**
     * FLUSHALL and FLUSHDB [ASYNC|SYNC] (dkv has one database): both forms return once every key written before
     * has been deleted, the memory nodes taking its memory back as for any delete.
     */
    private void flush(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length > 2 || (args.length == 2 && !CommandTable.is(args[1], "sync") &&
            !CommandTable.is(args[1], "async")))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        client.flush();
        RespReplies.ok(out);
    }

    /**
     * RENAME and RENAMENX: one transaction reads the source (value and expiry), writes them at the destination (its own
     * expiry gone) and deletes the source, so no reader sees both or neither, whichever nodes hold the two keys.
     */
    private void rename(final Session session, final byte[][] args, final ByteBuf out, final boolean nx)
    {
        final boolean same = Arrays.equals(args[1], args[2]);
        final int outcome = session.store(base).atomically(store ->
        {
            final Versioned source = store.readAny(args[1]);
            if (source == null)
            {
                return NO_SUCH_KEY;
            }
            if (same || (nx && store.readAny(args[2]) != null))
            {
                return KEPT;
            }
            // a hash's or a set's header moves; its segments, named by its generation, stay where they are
            store.delete(args[2]);
            final Transaction tx = store.transaction();
            tx.write(args[2], source.value(), source.expiryWord());
            tx.delete(args[1]);
            return MOVED;
        });
        if (outcome == NO_SUCH_KEY)
        {
            RespReplies.error(out, "ERR no such key");
        }
        else if (nx)
        {
            RespReplies.integer(out, outcome == MOVED ? 1 : 0);
        }
        else
        {
            RespReplies.ok(out);
        }
    }

    /** COPY source destination [DB index] [REPLACE], in one transaction; dkv has database 0 only. */
    private void copy(final Session session, final byte[][] args, final ByteBuf out)
    {
        boolean replace = false;
        for (int i = 3; i < args.length; i++)
        {
            if (CommandTable.is(args[i], "replace"))
            {
                replace = true;
            }
            else if (CommandTable.is(args[i], "db") && i + 1 < args.length)
            {
                final long db = RespNumbers.parseLong(args[++i]);
                if (!RespNumbers.isLong(args[i]) || db < Integer.MIN_VALUE || db > Integer.MAX_VALUE)
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                if (db != 0)
                {
                    RespReplies.error(out, Errors.DB_OUT_OF_RANGE);
                    return;
                }
            }
            else
            {
                RespReplies.error(out, Errors.SYNTAX);
                return;
            }
        }
        if (Arrays.equals(args[1], args[2]))
        {
            RespReplies.error(out, "ERR source and destination objects are the same");
            return;
        }
        final boolean overwrite = replace;
        while (!session.executing())
        {
            final Versioned source = session.store(base).readAny(args[1]);
            if (source == null || source.kind() != ValueKind.PIECES)
            {
                break;
            }
            try
            {
                RespReplies.integer(out, longWrites.copy(session, args[1], args[2], overwrite) ? 1 : 0);
                return;
            }
            catch (final LongStrings.Retry retry)
            {
                // the source changed kind: copied as what it holds now
            }
        }
        final boolean copied = session.store(base).atomically(store ->
        {
            final Versioned source = store.readAny(args[1]);
            if (source == null || (!overwrite && store.readAny(args[2]) != null))
            {
                return false;
            }
            if (source.kind() == ValueKind.PIECES)
            {
                throw new IllegalArgumentException("COPY of a string longer than " +
                    io.dkv.format.KvBlockLayout.MAX_VALUE_LENGTH + " bytes inside MULTI is not served (dkv)");
            }
            store.delete(args[2]);
            if (source.kind() == ValueKind.STRING)
            {
                store.transaction().write(args[2], source.value(), source.expiryWord());
            }
            else
            {
                // every segment copied under a new generation: the copy is its own
                Composites.open(store.transaction(), args[1], source.kind(), store.segmentBytes()).copyTo(args[2]);
            }
            return true;
        });
        RespReplies.integer(out, copied ? 1 : 0);
    }

    /** dkv keeps no access times: the keys that exist are counted, each as often as it is named (as redis). */
    private void touch(final Session session, final byte[][] args, final ByteBuf out)
    {
        RespReplies.integer(out, session.store(base).exists(Arrays.asList(args).subList(1, args.length)));
    }

    /** SCAN's TYPE: each key's kind read, as redis looks each key up (a key gone meanwhile is left out). */
    private static List<byte[]> ofType(final KeyStore store, final List<byte[]> keys, final String type)
    {
        final List<byte[]> kept = new ArrayList<>();
        for (final byte[] key : keys)
        {
            final Versioned read = store.readAny(key);
            if (read != null && ValueKind.name(read.kind()).equals(type))
            {
                kept.add(key);
            }
        }
        return kept;
    }

    private static void type(final Versioned read, final ByteBuf out)
    {
        RespReplies.simple(out, read == null ? "none" : ValueKind.name(read.kind()));
    }

    /** @return how many of the keys {@code args[1..]} had a value; deleted together when there are several. */
    static long deleteAll(final KeyStore store, final byte[][] args)
    {
        if (args.length == 2)
        {
            return store.delete(args[1]) ? 1 : 0;
        }
        return store.atomically(tx ->
        {
            tx.readAhead(Arrays.asList(args).subList(1, args.length));
            long deleted = 0;
            for (int i = 1; i < args.length; i++)
            {
                deleted += tx.delete(args[i]) ? 1 : 0;
            }
            return deleted;
        });
    }
}
