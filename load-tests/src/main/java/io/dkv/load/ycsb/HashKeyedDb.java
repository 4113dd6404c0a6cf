package io.dkv.load.ycsb;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Set;
import java.util.Vector;

/**
 * YCSB's DB interface on a store that finds a record by its key alone, as dkv's hash index and Redis do: a record
 * lives under the key {@code table:key}, the same in every such store, and scans, which need keys in order, are not
 * offered.
 */
public abstract class HashKeyedDb extends DB
{
    public final Status scan(
        final String table,
        final String startKey,
        final int recordCount,
        final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        return Status.NOT_IMPLEMENTED;
    }

    /** @return the store's key of a YCSB record: {@code table:key} in UTF-8. */
    public static byte[] key(final String table, final String key)
    {
        return (table + ":" + key).getBytes(StandardCharsets.UTF_8);
    }
}
