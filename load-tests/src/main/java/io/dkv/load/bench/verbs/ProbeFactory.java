package io.dkv.load.bench.verbs;

/**
 * A measured subject, set up once per provider: it makes a probe for each operation and size.
 */
interface ProbeFactory extends AutoCloseable
{
    /**
     * @param operation what the probe runs.
     * @param size      bytes per operation.
     * @param offsets   where in the subject's region each operation goes, see {@link io.dkv.load.bench.RandomOffsets}.
     * @return a probe, closed by the caller.
     */
    Probe probe(Operation operation, int size, long[] offsets);

    /**
     * @param operation what the probe runs.
     * @param size      bytes per operation.
     * @return a short description of what a probe of this operation and size does, for the report.
     */
    String describe(Operation operation, int size);

    void close();
}
