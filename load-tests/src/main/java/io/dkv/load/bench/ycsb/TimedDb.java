package io.dkv.load.bench.ycsb;

import org.HdrHistogram.Histogram;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

/**
 * One client thread's DB, timed: the latency of every call into the store it wraps, reads apart as
 * well, and the calls that did not answer OK. Used by one thread only, so it keeps its own
 * histograms without locks.
 */
final class TimedDb extends DB
{
    private static final int SIGNIFICANT_DIGITS = 3;

    private final DB store;
    final Histogram latency = new Histogram(SIGNIFICANT_DIGITS);
    final Histogram reads = new Histogram(SIGNIFICANT_DIGITS);
    long failures;
    String firstFailure;
    /** CPU time of the client thread over its share of a run. */
    long cpuNanos;

    TimedDb(final DB store)
    {
        this.store = store;
    }

    public void setProperties(final Properties properties)
    {
        super.setProperties(properties);
        store.setProperties(properties);
    }

    public void init() throws DBException
    {
        store.init();
    }

    public void cleanup() throws DBException
    {
        store.cleanup();
    }

    public Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        final long start = System.nanoTime();
        final Status status = store.read(table, key, fields, result);
        final long nanos = System.nanoTime() - start;
        latency.recordValue(nanos);
        reads.recordValue(nanos);
        return check(status, "read", key);
    }

    public Status scan(
        final String table,
        final String startKey,
        final int recordCount,
        final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        final long start = System.nanoTime();
        final Status status = store.scan(table, startKey, recordCount, fields, result);
        latency.recordValue(System.nanoTime() - start);
        return check(status, "scan", startKey);
    }

    public Status update(final String table, final String key, final Map<String, ByteIterator> values)
    {
        final long start = System.nanoTime();
        final Status status = store.update(table, key, values);
        latency.recordValue(System.nanoTime() - start);
        return check(status, "update", key);
    }

    public Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        final long start = System.nanoTime();
        final Status status = store.insert(table, key, values);
        latency.recordValue(System.nanoTime() - start);
        return check(status, "insert", key);
    }

    public Status delete(final String table, final String key)
    {
        final long start = System.nanoTime();
        final Status status = store.delete(table, key);
        latency.recordValue(System.nanoTime() - start);
        return check(status, "delete", key);
    }

    private Status check(final Status status, final String operation, final String key)
    {
        if (!status.isOk())
        {
            if (failures++ == 0)
            {
                firstFailure = operation + " of " + key + ": " + status.getName() +
                    (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
            }
        }
        return status;
    }
}
