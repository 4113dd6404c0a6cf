package io.dkv.client.ordered;

import org.agrona.collections.Int2ObjectHashMap;

/** Nodes in a map: a tree's store for tests, each read a copy as a store's would be. */
final class MapNodeStore implements NodeStore
{
    final Int2ObjectHashMap<byte[]> nodes = new Int2ObjectHashMap<>();

    public byte[] read(final int node)
    {
        final byte[] encoded = nodes.get(node);
        return encoded == null ? null : encoded.clone();
    }

    public void write(final int node, final byte[] encoded)
    {
        nodes.put(node, encoded.clone());
    }

    public void remove(final int node)
    {
        nodes.remove(node);
    }
}
