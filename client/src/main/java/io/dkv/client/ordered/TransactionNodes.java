package io.dkv.client.ordered;

import io.dkv.client.KvException;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.util.ArrayList;
import java.util.List;

/**
 * A tree's nodes at the reserved keys of a generation ({@code ReservedKeys.segmentKey(generation, node)}), read and
 * written through one transaction. Reads are peeks, which its commit does not check: every change of a node rewrites
 * its owner's header, which the transaction read (client/README.md, "Sorted sets and lists").
 */
final class TransactionNodes implements NodeStore
{
    private final Transaction tx;
    private final long generation;
    private final String owner;
    private long expireAt;

    TransactionNodes(final Transaction tx, final long generation, final long expireAt, final String owner)
    {
        this.tx = tx;
        this.generation = generation;
        this.expireAt = expireAt;
        this.owner = owner;
    }

    void expireAt(final long expireAt)
    {
        this.expireAt = expireAt;
    }

    public byte[] read(final int node)
    {
        final LogicalValue read = tx.peek(ReservedKeys.segmentKey(generation, node));
        if (read == null)
        {
            return null;
        }
        return value(node, read);
    }

    public byte[][] readAll(final int[] nodes, final int count)
    {
        final List<byte[]> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            keys.add(ReservedKeys.segmentKey(generation, nodes[i]));
        }
        final LogicalValue[] read = tx.peekAll(keys);
        final byte[][] values = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            values[i] = read[i] == null ? null : value(nodes[i], read[i]);
        }
        return values;
    }

    private byte[] value(final int node, final LogicalValue read)
    {
        if (read.kind() != ValueKind.SEGMENT)
        {
            throw new KvException("node " + node + " of the " + owner + " holds a " + ValueKind.name(read.kind()));
        }
        return read.value();
    }

    public void write(final int node, final byte[] encoded)
    {
        tx.write(ReservedKeys.segmentKey(generation, node), encoded, ValueKind.word(ValueKind.SEGMENT, expireAt));
    }

    public void remove(final int node)
    {
        tx.remove(ReservedKeys.segmentKey(generation, node));
    }
}
