package io.dkv.load.bench.ycsb;

import site.ycsb.workloads.CoreWorkload;

import java.util.Locale;
import java.util.Properties;

/**
 * YCSB's core workloads as its distribution defines them (the files {@code workloads/workloada} to
 * {@code workloadf}); E's scans run over dkv's ordered keyspace and over Redis's sorted set of keys, as
 * YCSB's Redis binding keeps one.
 */
enum YcsbWorkload
{
    A("update heavy: 50% reads, 50% updates, zipfian", 0.5, 0.5, 0, 0, "zipfian"),
    B("read mostly: 95% reads, 5% updates, zipfian", 0.95, 0.05, 0, 0, "zipfian"),
    C("read only: 100% reads, zipfian", 1.0, 0, 0, 0, "zipfian"),
    D("read latest: 95% reads, 5% inserts, latest", 0.95, 0, 0.05, 0, "latest"),
    E("short ranges: 95% scans of 1 to 100 records, 5% inserts, zipfian", 0, 0, 0.05, 0, "zipfian"),
    F("read-modify-write: 50% reads, 50% read-modify-writes, zipfian", 0.5, 0, 0, 0.5, "zipfian");

    static final String TABLE = "usertable";

    private final String description;
    private final double read;
    private final double update;
    private final double insert;
    private final double readModifyWrite;
    private final String distribution;

    YcsbWorkload(
        final String description,
        final double read,
        final double update,
        final double insert,
        final double readModifyWrite,
        final String distribution)
    {
        this.description = description;
        this.read = read;
        this.update = update;
        this.insert = insert;
        this.readModifyWrite = readModifyWrite;
        this.distribution = distribution;
    }

    /** @return "YCSB-A" and so on. */
    String title()
    {
        return "YCSB-" + name();
    }

    String description()
    {
        return description;
    }

    /** @return the share of operations that write a record (updates, inserts, read-modify-writes). */
    double writeShare()
    {
        return update + insert + readModifyWrite;
    }

    double insertShare()
    {
        return insert;
    }

    /**
     * @param records    records loaded (YCSB's recordcount).
     * @param operations operations of a run (YCSB's operationcount).
     * @return the workload's properties for {@link CoreWorkload}, with the record shape given.
     */
    Properties properties(final long records, final long operations, final int fieldCount, final int fieldLength)
    {
        final Properties properties = new Properties();
        properties.setProperty("workload", CoreWorkload.class.getName());
        properties.setProperty(CoreWorkload.TABLENAME_PROPERTY, TABLE);
        properties.setProperty("recordcount", Long.toString(records));
        properties.setProperty("operationcount", Long.toString(operations));
        properties.setProperty(CoreWorkload.FIELD_COUNT_PROPERTY, Integer.toString(fieldCount));
        properties.setProperty(CoreWorkload.FIELD_LENGTH_PROPERTY, Integer.toString(fieldLength));
        properties.setProperty(CoreWorkload.READ_ALL_FIELDS_PROPERTY, "true");
        properties.setProperty(CoreWorkload.READ_PROPORTION_PROPERTY, share(read));
        properties.setProperty(CoreWorkload.UPDATE_PROPORTION_PROPERTY, share(update));
        properties.setProperty(CoreWorkload.SCAN_PROPORTION_PROPERTY, this == E ? "0.95" : "0");
        properties.setProperty(CoreWorkload.MAX_SCAN_LENGTH_PROPERTY, "100");
        properties.setProperty(CoreWorkload.SCAN_LENGTH_DISTRIBUTION_PROPERTY, "uniform");
        properties.setProperty(CoreWorkload.INSERT_PROPORTION_PROPERTY, share(insert));
        properties.setProperty(CoreWorkload.READMODIFYWRITE_PROPORTION_PROPERTY, share(readModifyWrite));
        properties.setProperty(CoreWorkload.REQUEST_DISTRIBUTION_PROPERTY, distribution);
        return properties;
    }

    private static String share(final double share)
    {
        return String.format(Locale.ROOT, "%s", share);
    }
}
