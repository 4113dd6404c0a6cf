package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.ValueKind;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT: a compare-and-set loop on the key's version (read it, add, write it back
 * only if nobody wrote the key since), so concurrent increments through any compute nodes are never lost. The key keeps
 * its expiry, as in redis. Inside EXEC the loop reads and writes through the transaction, whose commit checks the read.
 */
final class CounterCommands
{
    private final KeyStore base;

    /** @param base the store outside EXEC. */
    CounterCommands(final KeyStore base)
    {
        this.base = base;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("incr", 2, (session, args, out) -> add(session, session.store(base), args[1], 1, out)),
            spec("decr", 2, (session, args, out) -> add(session, session.store(base), args[1], -1, out)),
            spec("incrby", 3, (session, args, out) -> addBy(session, session.store(base), args, false, out)),
            spec("decrby", 3, (session, args, out) -> addBy(session, session.store(base), args, true, out)),
            spec("incrbyfloat", 3, (session, args, out) -> addFloat(session.store(base), args, out)));
    }

    /**
     * INCRBYFLOAT: the sum in C's long double, as redis makes it ({@link LongDoubles}), written back as redis prints
     * it; the key keeps its expiry.
     */
    private void addFloat(final KeyStore store, final byte[][] args, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = store.getVersioned(args[1]);
            final LongDoubles.Value value = current == null ?
                new LongDoubles.Value(1, java.math.BigInteger.ZERO, 0, false) : LongDoubles.parse(current.value());
            final LongDoubles.Value by = value == null ? null : LongDoubles.parse(args[2]);
            if (by == null)
            {
                RespReplies.error(out, "ERR value is not a valid float");
                return;
            }
            final LongDoubles.Value sum = LongDoubles.add(value, by);
            if (sum == null || sum.infinite())
            {
                RespReplies.error(out, "ERR increment would produce NaN or Infinity");
                return;
            }
            final byte[] written = LongDoubles.format(sum).getBytes(StandardCharsets.US_ASCII);
            if (Rewrites.keepingExpiry(store, args[1], current, written))
            {
                RespReplies.bulk(out, written);
                return;
            }
        }
    }

    private void addBy(final Session session, final KeyStore store, final byte[][] args, final boolean decrement,
        final ByteBuf out)
    {
        if (!RespNumbers.isLong(args[2]))
        {
            RespReplies.error(out, Errors.NOT_INTEGER);
            return;
        }
        final long by = RespNumbers.parseLong(args[2]);
        if (decrement && by == Long.MIN_VALUE)
        {
            RespReplies.error(out, "ERR decrement would overflow");
            return;
        }
        add(session, store, args[1], decrement ? -by : by, out);
    }

    /**
     * INCR, DECR, INCRBY and DECRBY as a step ({@link Session#await}): the versioned read and the compare-and-set go
     * out through the store's asynchronous forms, again from a new read when the set lost a race. A value that is no
     * integer, an overflow, a hash or a string in pieces are answered from what was read, as the command alone answers
     * them (WRONGTYPE, its refusal of a string in pieces); a compare-and-set of unknown outcome is an error, never run
     * again.
     */
    private void add(final Session session, final KeyStore store, final byte[] key, final long by, final ByteBuf out)
    {
        if (!session.mayAwait(base))
        {
            add(store, key, by, out);
            return;
        }
        // the compare-and-set is posted by the connection's loop, never by the thread that delivered the read: a
        // write may need a heap chunk, an RPC whose answer that thread would have to deliver to itself
        final Executor loop = session.outlet().eventLoop();
        session.await(addAsync(store, key, by, loop), (sum, failure, reply) ->
        {
            if (failure != null)
            {
                // a hash or a string in pieces (WRONGTYPE, or the refusal of a string in pieces, as the command
                // alone answers), or a compare-and-set whose outcome is not known: running it again could add twice
                throw AsyncStep.unchecked(failure);
            }
            if (sum instanceof Long written)
            {
                RespReplies.integer(reply, written);
            }
            else
            {
                RespReplies.error(reply, (String)sum);
            }
        }, key);
    }

    /**
     * @return the sum written (a Long), or the error the command alone answers (a String): the value is no integer, or
     * the sum overflows.
     */
    private static CompletableFuture<Object> addAsync(final KeyStore store, final byte[] key, final long by,
        final Executor loop)
    {
        return store.getVersionedAsync(key).thenComposeAsync(current ->
        {
            long value = 0;
            if (current != null)
            {
                if (current.kind() != ValueKind.STRING)
                {
                    // a collection's header or a string in pieces: answered as the command alone answers it
                    return CompletableFuture.failedFuture(
                        new WrongKindException(key, current.kind(), ValueKind.STRING));
                }
                if (!RespNumbers.isLong(current.value()))
                {
                    return CompletableFuture.<Object>completedFuture(Errors.NOT_INTEGER);
                }
                value = RespNumbers.parseLong(current.value());
            }
            if (by < 0 && value < 0 && by < Long.MIN_VALUE - value ||
                by > 0 && value > 0 && by > Long.MAX_VALUE - value)
            {
                return CompletableFuture.<Object>completedFuture(Errors.OVERFLOW);
            }
            final long sum = value + by;
            final byte[] written = Long.toString(sum).getBytes(StandardCharsets.US_ASCII);
            return store.compareAndSetAsync(key, current, written,
                current == null ? KvClient.NO_EXPIRY : current.expireAtMillis())
                .thenComposeAsync(set -> set ? CompletableFuture.<Object>completedFuture(sum) :
                    addAsync(store, key, by, loop), loop);
        }, loop);
    }

    private void add(final KeyStore store, final byte[] key, final long by, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = store.getVersioned(key);
            long value = 0;
            if (current != null)
            {
                if (!RespNumbers.isLong(current.value()))
                {
                    RespReplies.error(out, Errors.NOT_INTEGER);
                    return;
                }
                value = RespNumbers.parseLong(current.value());
            }
            if (by < 0 && value < 0 && by < Long.MIN_VALUE - value ||
                by > 0 && value > 0 && by > Long.MAX_VALUE - value)
            {
                RespReplies.error(out, Errors.OVERFLOW);
                return;
            }
            final long sum = value + by;
            final byte[] written = Long.toString(sum).getBytes(StandardCharsets.US_ASCII);
            if (Rewrites.keepingExpiry(store, key, current, written))
            {
                RespReplies.integer(out, sum);
                return;
            }
        }
    }
}
