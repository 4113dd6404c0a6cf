package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.compute.resp.RespNumbers;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * INCR, DECR, INCRBY and DECRBY: a compare-and-set loop on the key's version (read it, add, write it back only if
 * nobody wrote the key since), so concurrent increments through any compute nodes are never lost. The key keeps its
 * expiry, as in redis.
 */
final class CounterCommands
{
    private final KvClient client;

    CounterCommands(final KvClient client)
    {
        this.client = client;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("incr", 2, (session, args, out) -> add(args[1], 1, out)),
            spec("decr", 2, (session, args, out) -> add(args[1], -1, out)),
            spec("incrby", 3, (session, args, out) -> addBy(args, false, out)),
            spec("decrby", 3, (session, args, out) -> addBy(args, true, out)));
    }

    private void addBy(final byte[][] args, final boolean decrement, final ByteBuf out)
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
        add(args[1], decrement ? -by : by, out);
    }

    private void add(final byte[] key, final long by, final ByteBuf out)
    {
        while (true)
        {
            final Versioned current = client.getVersioned(key);
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
            final boolean swapped = current == null ? client.compareAndSet(key, null, written) :
                client.compareAndSetVersion(key, current, written, current.expireAtMillis());
            if (swapped)
            {
                RespReplies.integer(out, sum);
                return;
            }
        }
    }
}
