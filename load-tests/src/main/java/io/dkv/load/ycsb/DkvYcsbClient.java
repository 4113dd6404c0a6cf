package io.dkv.load.ycsb;

import io.dkv.client.KvClient;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.client.ordered.OrderedKeyspace;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicReference;

/**
 * YCSB's DB interface on a dkv {@link KvClient}: a record is one value (see {@link RecordCodec})
 * under the key {@code table:key}, and the key is kept in order in the ordered keyspace named after
 * the table ({@link OrderedKeyspace}): an insert or a delete is one transaction over the record and
 * the keyspace's index, a scan a read-only transaction over the index's leaves and the records.
 * An update reads the record with its version, replaces the fields given and writes it back if
 * nobody wrote it since (compare-and-set of the version), again from a fresh read when another
 * writer came between, so that concurrent updates of different fields of a record are all kept.
 *
 * <p>YCSB makes one instance per client thread, reflectively through the no-argument constructor,
 * and configures it only with properties, which cannot carry a client running in this JVM; such
 * instances use the client handed over with {@link #handOver(KvClient)}. A runner of its own (as
 * {@code dkv bench ycsb}) passes the client to the constructor instead.
 */
public final class DkvYcsbClient extends HashKeyedDb
{
    /** Compare-and-set rounds an update may lose to other writers of the record before it fails. */
    static final int MAX_UPDATE_ATTEMPTS = 10_000;

    private static final AtomicReference<KvClient> HANDED_OVER = new AtomicReference<>();

    private final FieldNames names = new FieldNames();
    private KvClient client;

    /** For YCSB's reflective construction: the client is the one handed over when {@link #init()} runs. */
    public DkvYcsbClient()
    {
    }

    /** @param client the store's client, which stays the caller's to close. */
    public DkvYcsbClient(final KvClient client)
    {
        this.client = client;
    }

    /**
     * Give the client that instances made by YCSB (no-argument constructor) use.
     *
     * @param client the client, or null to withdraw it; it stays the caller's to close.
     */
    public static void handOver(final KvClient client)
    {
        HANDED_OVER.set(client);
    }

    public void init() throws DBException
    {
        if (client == null)
        {
            client = HANDED_OVER.get();
            if (client == null)
            {
                throw new DBException("no dkv client was handed over (DkvYcsbClient.handOver) before YCSB started " +
                    "its threads");
            }
        }
    }

    public Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        try
        {
            final byte[] record = client.get(key(table, key));
            if (record == null)
            {
                return Status.NOT_FOUND;
            }
            RecordCodec.decodeInto(record, fields, result, names);
            return Status.OK;
        }
        catch (final KvException | IllegalArgumentException ex)
        {
            return error("read", table, key, ex);
        }
    }

    public Status update(final String table, final String key, final Map<String, ByteIterator> values)
    {
        final byte[] dkvKey = key(table, key);
        final Map<String, byte[]> changes = materialize(values);
        try
        {
            for (int attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++)
            {
                final Versioned before = client.getVersioned(dkvKey);
                if (before == null)
                {
                    return Status.NOT_FOUND;
                }
                if (client.compareAndSetVersion(dkvKey, before,
                    RecordCodec.withChanges(before.value(), changes, names)))
                {
                    return Status.OK;
                }
            }
            return new Status("ERROR", "update of " + table + ":" + key + " lost " + MAX_UPDATE_ATTEMPTS +
                " compare-and-set rounds in a row to other writers");
        }
        catch (final KvException | IllegalArgumentException ex)
        {
            return error("update", table, key, ex);
        }
    }

    public Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        try
        {
            client.orderedKeyspace(table).put(key(table, key), RecordCodec.encode(materialize(values)));
            return Status.OK;
        }
        catch (final KvException | IllegalArgumentException ex)
        {
            return error("insert", table, key, ex);
        }
    }

    public Status delete(final String table, final String key)
    {
        try
        {
            return client.orderedKeyspace(table).delete(key(table, key)) ? Status.OK : Status.NOT_FOUND;
        }
        catch (final KvException ex)
        {
            return error("delete", table, key, ex);
        }
    }

    public Status scan(final String table, final String startKey, final int recordCount, final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        try
        {
            for (final Map.Entry<byte[], byte[]> record :
                client.orderedKeyspace(table).scan(key(table, startKey), recordCount))
            {
                final HashMap<String, ByteIterator> values = new HashMap<>();
                RecordCodec.decodeInto(record.getValue(), fields, values, names);
                result.add(values);
            }
            return Status.OK;
        }
        catch (final KvException | IllegalArgumentException ex)
        {
            return error("scan", table, startKey, ex);
        }
    }

    /** @return the values' bytes: a ByteIterator can be read once, an update may need them for several rounds. */
    static Map<String, byte[]> materialize(final Map<String, ByteIterator> values)
    {
        final Map<String, byte[]> bytes = new LinkedHashMap<>(values.size() * 2);
        for (final Map.Entry<String, ByteIterator> value : values.entrySet())
        {
            bytes.put(value.getKey(), value.getValue().toArray());
        }
        return bytes;
    }

    private static Status error(final String operation, final String table, final String key, final RuntimeException ex)
    {
        return new Status("ERROR", operation + " of " + table + ":" + key + " failed: " + ex.getMessage());
    }
}
