package io.dkv.client.collection;

import io.dkv.client.ordered.TreeCollection;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;

/** Opens the value of many blocks at a key by its kind. */
public final class Composites
{
    private Composites()
    {
    }

    /**
     * @param kind         what the key holds ({@link ValueKind}): a hash, a set, a sorted set or a list.
     * @param segmentBytes {@code KvClientContext.collectionSegmentBytes}: a segment's bytes of elements on average
     *                     and a quarter of a tree node's most.
     * @return the value at {@code key} as {@code tx} sees it.
     */
    public static Composite open(final Transaction tx, final byte[] key, final int kind, final int segmentBytes)
    {
        return switch (kind)
        {
            case ValueKind.HASH, ValueKind.SET -> Collection.open(tx, key, kind, segmentBytes);
            case ValueKind.ZSET, ValueKind.LIST -> TreeCollection.open(tx, key, kind, segmentBytes);
            default -> throw new IllegalArgumentException("kind " + ValueKind.name(kind) + " is not made of " +
                "many blocks");
        };
    }
}
