package io.dkv.agent;

import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.agent.CountersFileDescriptor.CLOSED_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.HEADER_LENGTH;
import static io.dkv.agent.CountersFileDescriptor.METADATA_LENGTH_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.PID_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.START_TIME_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.SUFFIX;
import static io.dkv.agent.CountersFileDescriptor.VALUES_LENGTH_OFFSET;
import static io.dkv.agent.CountersFileDescriptor.VERSION;
import static io.dkv.agent.CountersFileDescriptor.VERSION_OFFSET;

/**
 * Reads a process's counters file ({@link CountersFileDescriptor}) from another process, as Aeron's AeronStat reads a
 * media driver's counters: the file is mapped read-only, so the process runs on undisturbed.
 */
public final class CountersStat
{
    private final Path file;
    private final UnsafeBuffer header;
    private final CountersReader reader;

    private CountersStat(final Path file, final UnsafeBuffer header, final CountersReader reader)
    {
        this.file = file;
        this.header = header;
        this.reader = reader;
    }

    /**
     * @param file a counters file, of a running process or one killed before it could close.
     * @return the file mapped for reading.
     * @throws IllegalStateException when the file is missing or not a counters file of this version.
     */
    public static CountersStat open(final Path file)
    {
        final MappedByteBuffer mapping = HostFiles.mapForReading(file, "a counters file", HEADER_LENGTH,
            VERSION_OFFSET, VERSION, "no such process runs on this host");
        final long size = mapping.capacity();
        final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        final long valuesOffset = CountersFileDescriptor.valuesOffset(metadataLength);
        if (metadataLength < 0 || valuesLength < 0 || valuesOffset + valuesLength > size)
        {
            throw new IllegalStateException(file + " names metadata of " + metadataLength + " bytes and values of " +
                valuesLength + " bytes beyond its " + size + " bytes");
        }
        return new CountersStat(file, header, new CountersReader(
            new UnsafeBuffer(mapping, CountersFileDescriptor.metadataOffset(), metadataLength),
            new UnsafeBuffer(mapping, (int)valuesOffset, valuesLength)));
    }

    /** @return the counters, as another process reads them. */
    public CountersReader reader()
    {
        return reader;
    }

    public long pid()
    {
        return header.getLong(PID_OFFSET);
    }

    /** @return false once the process closed the file, or died without closing it. */
    public boolean isRunning()
    {
        return header.getIntVolatile(CLOSED_OFFSET) == 0 && !HostFiles.isDead(pid());
    }

    /** @return the value of the counter with that label, or -1 when the file has none. */
    public long value(final String label)
    {
        final long[] found = {-1};
        reader.forEach((value, id, counterLabel) ->
        {
            if (counterLabel.equals(label))
            {
                found[0] = value;
            }
        });
        return found[0];
    }

    /**
     * @param name what the file belongs to, as the report names it (a driver, a memory node).
     * @return a line naming the process (pid, running or stopped, since when), then one line per counter: its id,
     * label and value, aligned.
     */
    public String report(final String name)
    {
        final List<String> labels = new ArrayList<>();
        final List<long[]> idsAndValues = new ArrayList<>();
        reader.forEach((value, id, label) ->
        {
            labels.add(label);
            idsAndValues.add(new long[]{id, value});
        });
        int width = 0;
        for (final String label : labels)
        {
            width = Math.max(width, label.length());
        }
        final StringBuilder text = new StringBuilder(name).append(" (pid ").append(pid()).append(", ")
            .append(isRunning() ? "running" : "stopped").append(", started ")
            .append(Instant.ofEpochMilli(header.getLong(START_TIME_OFFSET))).append("), ").append(file).append(":\n");
        final String line = "%4d  %-" + Math.max(1, width) + "s  %20d%n";
        for (int i = 0; i < labels.size(); i++)
        {
            text.append(String.format(line, idsAndValues.get(i)[0], labels.get(i), idsAndValues.get(i)[1]));
        }
        if (labels.isEmpty())
        {
            text.append("  no counters allocated yet\n");
        }
        return text.toString();
    }

    /**
     * @param directory the host's counters files ({@link CountersFile#hostDirectory(Path)}).
     * @param prefix    the role's start of names, as {@code memory-node-}; the node id follows.
     * @param nodeId    the node to report, or 0 for every node of the role on the host.
     * @return the report of the node's file, or of each of the role's.
     * @throws IllegalStateException naming the file, or the folder and role, when no such node runs on the host.
     */
    public static String reportOf(final Path directory, final String prefix, final long nodeId)
    {
        return nodeId == 0 ? reportAll(directory, prefix) :
            open(CountersFile.fileOf(directory, prefix + nodeId)).report(prefix + nodeId);
    }

    /**
     * @param directory the host's counters files ({@link CountersFile#hostDirectory(Path)}).
     * @param prefix    the start of the names to report (a role, as {@code memory-node-}).
     * @return the report of each such file, in name order.
     * @throws IllegalStateException naming the folder and role when there is none.
     */
    public static String reportAll(final Path directory, final String prefix)
    {
        final List<Path> files = HostFiles.list(directory, prefix, SUFFIX);
        if (files.isEmpty())
        {
            throw new IllegalStateException("no " + prefix + "* counters files in " + directory +
                ": none runs on this host");
        }
        final StringBuilder text = new StringBuilder();
        for (final Path file : files)
        {
            final String name = file.getFileName().toString();
            text.append(open(file).report(name.substring(0, name.length() - SUFFIX.length())));
        }
        return text.toString();
    }
}
