package io.dkv.load.ycsb;

import site.ycsb.DB;

import java.nio.charset.StandardCharsets;

/**
 * YCSB's DB interface on a store that finds a record by its key, as dkv's hash index and Redis do: a record lives
 * under the key {@code table:key}, the same in every such store. Scans need keys kept in order besides: dkv keeps them
 * in an ordered keyspace, Redis (as YCSB's own Redis binding does) in a sorted set.
 */
public abstract class HashKeyedDb extends DB
{

    /** @return the store's key of a YCSB record: {@code table:key} in UTF-8. */
    public static byte[] key(final String table, final String key)
    {
        return (table + ":" + key).getBytes(StandardCharsets.UTF_8);
    }
}
