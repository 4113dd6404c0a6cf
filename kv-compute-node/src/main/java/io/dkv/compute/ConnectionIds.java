package io.dkv.compute;

import io.dkv.client.KvClient;
import io.dkv.client.txn.LogicalValue;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import org.agrona.ErrorHandler;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Connection ids unique across the pool (CLIENT ID, CLIENT UNBLOCK of a connection of another node): a node takes
 * blocks of {@link #BLOCK} ids from a counter the store keeps ({@code \x00dkv\x00connection-ids}, 8 bytes), one
 * transaction a block, so ids stay small numbers that only grow on a node, as redis's do. Should the store be out of
 * reach when a block is due, the node takes a random block above 2^62 instead (counted as an error): its connections
 * cannot do anything then anyway, and such a block meets another only by a chance of one in 2^45.
 */
final class ConnectionIds
{
    /** Ids a block. */
    static final long BLOCK = 1 << 16;
    private static final byte[] KEY = ReservedKeys.namedKey("connection-ids");
    private static final long WORD = ValueKind.word(ValueKind.SEGMENT, KvClient.NO_EXPIRY);
    private static final long UNRESERVED_BASE = 1L << 62;

    private final KvClient client;
    private final ErrorHandler errors;
    private long next;
    private long end;

    /**
     * @param client the store the counter is kept in.
     * @param errors where a block the store could not give is counted.
     */
    ConnectionIds(final KvClient client, final ErrorHandler errors)
    {
        this.client = client;
        this.errors = errors;
    }

    /** @return an id no connection of the pool had: the next of this node's block, a new block when it is used up. */
    synchronized long next()
    {
        if (next == end)
        {
            next = reserve();
            end = next + BLOCK;
        }
        return next++;
    }

    private long reserve()
    {
        try
        {
            // ids from 1, as redis's
            return 1 + client.transact(tx ->
            {
                final LogicalValue taken = tx.read(KEY);
                final long base = taken == null || taken.value().length != Long.BYTES ? 0 :
                    ByteBuffer.wrap(taken.value()).getLong();
                tx.write(KEY, ByteBuffer.allocate(Long.BYTES).putLong(base + BLOCK).array(), WORD);
                return base;
            });
        }
        catch (final RuntimeException ex)
        {
            errors.onError(new IllegalStateException("no block of connection ids from the store (" + ex.getMessage() +
                "): this node's next " + BLOCK + " take a random block above 2^62", ex));
            return UNRESERVED_BASE + ThreadLocalRandom.current().nextLong(1L << 45) * BLOCK;
        }
    }
}
