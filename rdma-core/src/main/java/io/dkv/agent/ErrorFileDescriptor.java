package io.dkv.agent;

/**
 * Layout of an agent's error file: a small header saying whose errors they are, then the {@link ErrorLog}'s buffer,
 * so that another process ({@code ./dkv memory-node --errors}, {@code ./dkv meta --errors}) reads them while the
 * agent runs and after it stopped.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     version (written last)                    |
 *  +---------------------------------------------------------------+
 *  |                     error log length                          |
 *  +---------------------------------------------------------------+
 *  |                     process id                                |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     start time, epoch ms                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     closed (1 after a clean close)            |
 *  +---------------------------------------------------------------+
 *  |  ..  to 64 bytes                                              |
 *  +---------------------------------------------------------------+
 *  |  error log: Agrona's DistinctErrorLog, error log length bytes ...
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class ErrorFileDescriptor
{
    /** Changes whenever the layout does; a reader refuses a file of another. */
    public static final int VERSION = 1;
    public static final int VERSION_OFFSET = 0;
    public static final int LOG_LENGTH_OFFSET = 4;
    public static final int PID_OFFSET = 8;
    public static final int START_TIME_OFFSET = 16;
    public static final int CLOSED_OFFSET = 24;
    /** Bytes before the log: a cache line, so the log starts as aligned as Agrona wants it. */
    public static final int HEADER_LENGTH = 64;
    /** Ending of an error file's name; the name before it says the role and node. */
    public static final String SUFFIX = ".errors";
    /** The folder, below the host's shm directory, where the agents of this host keep their error files. */
    public static final String HOST_FOLDER = "dkv-errors";

    private ErrorFileDescriptor()
    {
    }
}
