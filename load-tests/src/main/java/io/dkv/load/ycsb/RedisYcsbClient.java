package io.dkv.load.ycsb;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

/**
 * YCSB's DB interface on Redis, the peer dkv is measured beside: a record is a hash under the key
 * {@code table:key} (the same keys as {@link DkvYcsbClient}), read with HGETALL or HMGET, written
 * with HSET (field by field, so concurrent updates of different fields are kept), removed with DEL.
 * Keys are kept in order as YCSB's own Redis binding keeps them: an insert also adds the key to the
 * sorted set {@value #INDEX_KEY} scored by the key's Java hash code, a delete removes it, a scan takes
 * ZRANGEBYSCORE from the start key's score with LIMIT 0 count and then reads each record. One
 * connection per instance, as YCSB makes one instance per client thread.
 *
 * <p>Properties: {@value #HOST_PROPERTY} (default {@value #HOST_DEFAULT}) and {@value #PORT_PROPERTY}
 * (default {@value #PORT_DEFAULT}).
 */
public final class RedisYcsbClient extends HashKeyedDb
{
    public static final String HOST_PROPERTY = "redis.host";
    public static final String HOST_DEFAULT = "127.0.0.1";
    public static final String PORT_PROPERTY = "redis.port";
    public static final String PORT_DEFAULT = "6379";

    /** YCSB's Redis binding's index of keys. */
    public static final String INDEX_KEY = "_indices";
    private static final byte[] INDEX = INDEX_KEY.getBytes(StandardCharsets.UTF_8);

    private Jedis jedis;

    public void init() throws DBException
    {
        final String host = getProperties().getProperty(HOST_PROPERTY, HOST_DEFAULT);
        final String port = getProperties().getProperty(PORT_PROPERTY, PORT_DEFAULT);
        try
        {
            jedis = new Jedis(host, Integer.parseInt(port));
            jedis.ping();
        }
        catch (final NumberFormatException ex)
        {
            throw new DBException(PORT_PROPERTY + " '" + port + "' is not a port number");
        }
        catch (final JedisException ex)
        {
            throw new DBException("cannot reach Redis at " + host + ":" + port + ": " + ex.getMessage(), ex);
        }
    }

    public void cleanup()
    {
        if (jedis != null)
        {
            jedis.close();
        }
    }

    public Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        try
        {
            final byte[] redisKey = key(table, key);
            if (fields == null)
            {
                final Map<byte[], byte[]> hash = jedis.hgetAll(redisKey);
                if (hash.isEmpty())
                {
                    return Status.NOT_FOUND;
                }
                for (final Map.Entry<byte[], byte[]> field : hash.entrySet())
                {
                    result.put(new String(field.getKey(), StandardCharsets.UTF_8),
                        new ByteArrayByteIterator(field.getValue()));
                }
                return Status.OK;
            }
            final byte[][] names = new byte[fields.size()][];
            int i = 0;
            for (final String field : fields)
            {
                names[i++] = field.getBytes(StandardCharsets.UTF_8);
            }
            final List<byte[]> values = jedis.hmget(redisKey, names);
            boolean any = false;
            i = 0;
            for (final String field : fields)
            {
                final byte[] value = values.get(i++);
                if (value != null)
                {
                    result.put(field, new ByteArrayByteIterator(value));
                    any = true;
                }
            }
            return any ? Status.OK : Status.NOT_FOUND;
        }
        catch (final JedisException ex)
        {
            return error("read", table, key, ex);
        }
    }

    public Status update(final String table, final String key, final Map<String, ByteIterator> values)
    {
        return write("update", table, key, values);
    }

    public Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        final Status written = write("insert", table, key, values);
        if (!written.isOk())
        {
            return written;
        }
        try
        {
            jedis.zadd(INDEX, score(table, key), key(table, key));
            return Status.OK;
        }
        catch (final JedisException ex)
        {
            return error("insert", table, key, ex);
        }
    }

    public Status delete(final String table, final String key)
    {
        try
        {
            final long removed = jedis.del(key(table, key));
            jedis.zrem(INDEX, key(table, key));
            return removed > 0 ? Status.OK : Status.NOT_FOUND;
        }
        catch (final JedisException ex)
        {
            return error("delete", table, key, ex);
        }
    }

    public Status scan(final String table, final String startKey, final int recordCount, final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        try
        {
            final List<byte[]> keys = jedis.zrangeByScore(INDEX, score(table, startKey), Double.POSITIVE_INFINITY,
                0, recordCount);
            for (final byte[] redisKey : keys)
            {
                final HashMap<String, ByteIterator> values = new HashMap<>();
                final String name = new String(redisKey, StandardCharsets.UTF_8);
                read(table, name.substring(table.length() + 1), fields, values);
                result.add(values);
            }
            return Status.OK;
        }
        catch (final JedisException ex)
        {
            return error("scan", table, startKey, ex);
        }
    }

    /** @return YCSB's Redis binding's score of a key: its Java hash code. */
    private static double score(final String table, final String key)
    {
        return (table + ":" + key).hashCode();
    }

    private Status write(final String operation, final String table, final String key,
        final Map<String, ByteIterator> values)
    {
        final Map<byte[], byte[]> hash = new HashMap<>(values.size() * 2);
        for (final Map.Entry<String, ByteIterator> value : values.entrySet())
        {
            hash.put(value.getKey().getBytes(StandardCharsets.UTF_8), value.getValue().toArray());
        }
        try
        {
            jedis.hset(key(table, key), hash);
            return Status.OK;
        }
        catch (final JedisException ex)
        {
            return error(operation, table, key, ex);
        }
    }

    private static Status error(final String operation, final String table, final String key, final JedisException ex)
    {
        return new Status("ERROR", operation + " of " + table + ":" + key + " on Redis failed: " + ex.getMessage());
    }
}
