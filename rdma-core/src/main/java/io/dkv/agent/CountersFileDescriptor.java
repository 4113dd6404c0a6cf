package io.dkv.agent;

import org.agrona.concurrent.status.CountersReader;

/**
 * Layout of a process's counters file: a small header saying whose counters they are, then the two buffers of
 * Agrona's {@link org.agrona.concurrent.status.CountersManager} (as Aeron's CnC file holds them), so that another
 * process ({@code ./dkv driver --counters}, {@code ./dkv memory-node --counters}, {@code ./dkv meta --counters}) maps
 * the file and reads them with a {@link CountersReader} while the process runs, without disturbing it.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     version (written last)                    |
 *  +---------------------------------------------------------------+
 *  |                     metadata length                           |
 *  +---------------------------------------------------------------+
 *  |                     values length                             |
 *  +---------------------------------------------------------------+
 *  |                     closed (1 after a clean close)            |
 *  +---------------------------------------------------------------+
 *  |                     process id                                |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     start time, epoch ms                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |  ..  to 128 bytes                                             |
 *  +---------------------------------------------------------------+
 *  |  metadata: one 512-byte record per counter (state, type id,   |
 *  |  key, label), metadata length bytes                         ...
 *  +---------------------------------------------------------------+
 *  |  values: one 128-byte record per counter (the value first,    |
 *  |  padded against false sharing), values length bytes         ...
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class CountersFileDescriptor
{
    /** Changes whenever the layout does; a reader refuses a file of another. */
    public static final int VERSION = 1;
    public static final int VERSION_OFFSET = 0;
    public static final int METADATA_LENGTH_OFFSET = 4;
    public static final int VALUES_LENGTH_OFFSET = 8;
    public static final int CLOSED_OFFSET = 12;
    public static final int PID_OFFSET = 16;
    public static final int START_TIME_OFFSET = 24;
    /** Bytes before the metadata: a multiple of the counters' records, so every value is as aligned as Agrona wants. */
    public static final int HEADER_LENGTH = 128;
    /** Counters a file holds unless its role asks for more: every counter of a role and of the driver it embeds. */
    public static final int MAX_COUNTERS_DEFAULT = 128;
    /** Ending of a counters file's name in the host folder; the name before it says the role and node. */
    public static final String SUFFIX = ".counters";
    /** The folder, below the host's shm directory, where processes without a folder of their own keep counters. */
    public static final String HOST_FOLDER = "dkv-counters";

    private CountersFileDescriptor()
    {
    }

    /** @return bytes of the values buffer for that many counters. */
    public static int valuesLength(final int maxCounters)
    {
        return maxCounters * CountersReader.COUNTER_LENGTH;
    }

    /** @return bytes of the metadata buffer for that many counters. */
    public static int metadataLength(final int maxCounters)
    {
        return maxCounters * CountersReader.METADATA_LENGTH;
    }

    /** @return where the metadata buffer starts. */
    public static int metadataOffset()
    {
        return HEADER_LENGTH;
    }

    /** @return where the values buffer starts, after a metadata buffer of that length. */
    public static long valuesOffset(final int metadataLength)
    {
        return HEADER_LENGTH + (long)metadataLength;
    }

    /** @return the file's length for that many counters. */
    public static long fileLength(final int maxCounters)
    {
        return valuesOffset(metadataLength(maxCounters)) + valuesLength(maxCounters);
    }
}
