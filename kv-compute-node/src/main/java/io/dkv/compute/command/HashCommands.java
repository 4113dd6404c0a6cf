package io.dkv.compute.command;

import io.dkv.client.collection.Collection;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static io.dkv.compute.command.CommandTable.is;
import static io.dkv.compute.command.CommandTable.spec;

/**
 * Redis's hash commands over the client's collections (client/README.md, "Hashes and sets"): each command one
 * transaction that opens the hash at its key (WRONGTYPE when the key holds another kind), reads or changes its
 * elements, and hands the changes to the commit; inside EXEC, part of EXEC's transaction. A hash left with no field is
 * removed, as in redis. Replies are built only once the transaction has committed, so a conflict's rerun answers once.
 */
final class HashCommands
{
    private final KeyStore base;

    /** @param base the store outside EXEC. */
    HashCommands(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("hset", -4, (session, args, out) -> set(session, args, out, true)),
            spec("hmset", -4, (session, args, out) -> set(session, args, out, false)),
            spec("hsetnx", 4, this::setNx),
            spec("hget", 3, (session, args, out) ->
                RespReplies.bulkOrNull(out, read(session, args[1], hash -> hash.get(args[2])), session.protocol())),
            spec("hmget", -3, this::multiGet),
            spec("hdel", -3, (session, args, out) -> RespReplies.integer(out,
                CollectionOps.countChanges(session.store(base), args, ValueKind.HASH, Collection::remove))),
            spec("hlen", 2, (session, args, out) -> RespReplies.integer(out, read(session, args[1], Collection::size))),
            spec("hstrlen", 3, (session, args, out) ->
            {
                final byte[] value = read(session, args[1], hash -> hash.get(args[2]));
                RespReplies.integer(out, value == null ? 0 : value.length);
            }),
            spec("hexists", 3, (session, args, out) ->
                RespReplies.integer(out, read(session, args[1], hash -> hash.contains(args[2])) ? 1 : 0)),
            spec("hkeys", 2, (session, args, out) -> all(session, args, out, true, false)),
            spec("hvals", 2, (session, args, out) -> all(session, args, out, false, true)),
            spec("hgetall", 2, (session, args, out) -> all(session, args, out, true, true)),
            spec("hincrby", 4, this::incrBy),
            spec("hincrbyfloat", 4, this::incrByFloat),
            spec("hrandfield", -2, this::randomField),
            spec("hscan", -3, (session, args, out) -> CollectionScan.scan(session.store(base), args, out,
                ValueKind.HASH)));
    }

    /** @return what {@code body} makes of the hash at {@code key}, read in one transaction. */
    private <T> T read(final Session session, final byte[] key, final Function<Collection, T> body)
    {
        return CollectionOps.read(session.store(base), key, ValueKind.HASH, body);
    }

    private static Collection open(final KeyStore store, final byte[] key)
    {
        return CollectionOps.open(store, key, ValueKind.HASH);
    }

    /** HSET answers how many fields are new; HMSET, OK. */
    private void set(final Session session, final byte[][] args, final ByteBuf out, final boolean counted)
    {
        if (args.length % 2 == 1)
        {
            RespReplies.error(out, Errors.arity(counted ? "hset" : "hmset"));
            return;
        }
        final long added = session.store(base).atomically(store ->
        {
            final Collection hash = open(store, args[1]);
            long created = 0;
            for (int i = 2; i < args.length; i += 2)
            {
                created += hash.put(args[i], args[i + 1]) ? 1 : 0;
            }
            hash.write();
            return created;
        });
        if (counted)
        {
            RespReplies.integer(out, added);
        }
        else
        {
            RespReplies.ok(out);
        }
    }

    private void setNx(final Session session, final byte[][] args, final ByteBuf out)
    {
        final boolean set = session.store(base).atomically(store ->
        {
            final Collection hash = open(store, args[1]);
            if (hash.contains(args[2]))
            {
                return false;
            }
            hash.put(args[2], args[3]);
            hash.write();
            return true;
        });
        RespReplies.integer(out, set ? 1 : 0);
    }

    private void multiGet(final Session session, final byte[][] args, final ByteBuf out)
    {
        final List<byte[]> values = read(session, args[1], hash ->
        {
            final List<byte[]> read = new ArrayList<>(args.length - 2);
            for (int i = 2; i < args.length; i++)
            {
                read.add(hash.get(args[i]));
            }
            return read;
        });
        RespReplies.arrayHeader(out, values.size());
        values.forEach(value -> RespReplies.bulkOrNull(out, value, session.protocol()));
    }

    /** HKEYS, HVALS, HGETALL: every segment read in the one transaction, the reply built once it has committed. */
    private void all(final Session session, final byte[][] args, final ByteBuf out, final boolean fields,
        final boolean values)
    {
        final List<byte[]> elements = read(session, args[1], hash ->
        {
            final List<byte[]> read = new ArrayList<>();
            hash.forEach((field, value) ->
            {
                if (fields)
                {
                    read.add(field);
                }
                if (values)
                {
                    read.add(value);
                }
            });
            return read;
        });
        if (fields && values)
        {
            RespReplies.mapHeader(out, elements.size() / 2, session.protocol());
        }
        else
        {
            RespReplies.arrayHeader(out, elements.size());
        }
        elements.forEach(element -> RespReplies.bulk(out, element));
    }

    private void incrBy(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[3]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long by = RespNumbers.parseLong(args[3]);
        final Object outcome = session.store(base).atomically(store ->
        {
            final Collection hash = open(store, args[1]);
            final byte[] current = hash.get(args[2]);
            if (current != null && !RespNumbers.isLong(current))
            {
                return "ERR hash value is not an integer";
            }
            final long value = current == null ? 0 : RespNumbers.parseLong(current);
            if (by < 0 && value < 0 && by < Long.MIN_VALUE - value ||
                by > 0 && value > 0 && by > Long.MAX_VALUE - value)
            {
                return Errors.OVERFLOW;
            }
            hash.put(args[2], Long.toString(value + by).getBytes(StandardCharsets.US_ASCII));
            hash.write();
            return value + by;
        });
        if (outcome instanceof String error)
        {
            RespReplies.error(out, error);
        }
        else
        {
            RespReplies.integer(out, (Long)outcome);
        }
    }

    /** The sum in C's long double as redis makes it ({@link LongDoubles}), as INCRBYFLOAT. */
    private void incrByFloat(final Session session, final byte[][] args, final ByteBuf out)
    {
        final LongDoubles.Value by = LongDoubles.parse(args[3]);
        if (by == null)
        {
            RespReplies.error(out, "ERR value is not a valid float");
            return;
        }
        if (by.infinite())
        {
            RespReplies.error(out, "ERR value is NaN or Infinity");
            return;
        }
        final Object outcome = session.store(base).atomically(store ->
        {
            final Collection hash = open(store, args[1]);
            final byte[] current = hash.get(args[2]);
            final LongDoubles.Value value = current == null ?
                new LongDoubles.Value(1, java.math.BigInteger.ZERO, 0, false) : LongDoubles.parse(current);
            if (value == null)
            {
                return "ERR hash value is not a float";
            }
            final LongDoubles.Value sum = LongDoubles.add(value, by);
            if (sum == null || sum.infinite())
            {
                return "ERR increment would produce NaN or Infinity";
            }
            final byte[] written = LongDoubles.format(sum).getBytes(StandardCharsets.US_ASCII);
            hash.put(args[2], written);
            hash.write();
            return written;
        });
        if (outcome instanceof String error)
        {
            RespReplies.error(out, error);
        }
        else
        {
            RespReplies.bulk(out, (byte[])outcome);
        }
    }

    /** HRANDFIELD key [count [WITHVALUES]], its arguments checked as redis 7.0 checks them. */
    private void randomField(final Session session, final byte[][] args, final ByteBuf out)
    {
        if (args.length == 2)
        {
            RespReplies.bulkOrNull(out, read(session, args[1], Collection::randomField), session.protocol());
            return;
        }
        if (!RespNumbers.isLong(args[2]) || RespNumbers.parseLong(args[2]) == Long.MIN_VALUE)
        {
            RespReplies.error(out, RespNumbers.isLong(args[2]) ? "ERR value is out of range, value must between " +
                -Long.MAX_VALUE + " and " + Long.MAX_VALUE : Errors.NOT_INTEGER);
            return;
        }
        final long count = RespNumbers.parseLong(args[2]);
        if (args.length > 4 || args.length == 4 && !is(args[3], "withvalues"))
        {
            RespReplies.error(out, Errors.SYNTAX);
            return;
        }
        final boolean withValues = args.length == 4;
        if (withValues && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2))
        {
            RespReplies.error(out, "ERR value is out of range");
            return;
        }
        final List<byte[][]> picked = read(session, args[1], hash -> RandomElements.pick(hash, count));
        final boolean pairs = withValues && session.protocol() > 2;
        RespReplies.arrayHeader(out, withValues && !pairs ? picked.size() * 2 : picked.size());
        for (final byte[][] element : picked)
        {
            if (pairs)
            {
                RespReplies.arrayHeader(out, 2);
            }
            RespReplies.bulk(out, element[0]);
            if (withValues)
            {
                RespReplies.bulk(out, element[1]);
            }
        }
    }
}
