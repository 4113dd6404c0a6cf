package io.dkv.raas.cnc;

import io.dkv.agent.CountersStat;
import io.dkv.agent.ErrorLog;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads a standalone driver's error log from its cnc file, from another process and without disturbing the driver
 * (as Aeron's ErrorStat reads a media driver's): a live driver's, or a stopped one's that kept its file because it had
 * recorded errors. Reads its counters too, from the counters file beside the cnc file (as AeronStat does).
 */
public final class DriverErrors
{
    private DriverErrors()
    {
    }

    /**
     * @param driverDirectory the driver's directory ({@link CncDescriptor#driverDirectory}).
     * @return a report: the driver, its state, and each of its counters (id, label, value), one line each.
     * @throws RaasException when no driver of that name runs on the host (no counters file is there).
     */
    public static String counters(final Path driverDirectory)
    {
        final Path file = driverDirectory.resolve(CncDescriptor.COUNTERS_FILE);
        if (!Files.exists(file))
        {
            throw new RaasException("no driver named '" + driverDirectory.getFileName() + "' runs on this host (no " +
                file + ")");
        }
        try
        {
            return CountersStat.open(file).report("driver '" + driverDirectory.getFileName() + "'");
        }
        catch (final IllegalStateException ex)
        {
            throw new RaasException("driver '" + driverDirectory.getFileName() + "': " + ex.getMessage(), ex);
        }
    }

    /**
     * @param driverDirectory the driver's directory ({@link CncDescriptor#driverDirectory}).
     * @return a report: the driver, its state, and each distinct error with how often and when it was seen.
     * @throws RaasException when no cnc file is there, or it is not one of this version.
     */
    public static String report(final Path driverDirectory)
    {
        final Path cncFile = driverDirectory.resolve(CncDescriptor.CNC_FILE);
        try (FileChannel channel = FileChannel.open(cncFile, StandardOpenOption.READ);
            Arena arena = Arena.ofConfined())
        {
            final long size = channel.size();
            if (size < CncDescriptor.CNC_HEADER_LENGTH)
            {
                throw new RaasException(cncFile + " is " + size + " bytes: not a driver's cnc file");
            }
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            final CncHeaderFlyweight header = new CncHeaderFlyweight()
                .wrap(new UnsafeBuffer(mapping.address(), CncDescriptor.CNC_HEADER_LENGTH));
            if (!header.isReady())
            {
                throw new RaasException(cncFile + " is not a cnc file of version " + CncDescriptor.VERSION +
                    " (a driver of another dkv version, or one still starting)");
            }
            final long offset = CncDescriptor.errorLogOffset(header.toDriverLength());
            final int length = header.errorLogLength();
            if (offset + length > size)
            {
                throw new RaasException(cncFile + " names an error log of " + length + " bytes at " + offset +
                    " beyond its " + size + " bytes");
            }
            final String errors = ErrorLog.read(new UnsafeBuffer(mapping.address() + offset, length), 0);
            return "driver '" + driverDirectory.getFileName() + "' (pid " + header.driverPid() + ", " +
                (header.isClosed() ? "stopped" : "running") + "):" +
                (errors.isEmpty() ? " no errors recorded\n" : "\n" + errors);
        }
        catch (final NoSuchFileException ex)
        {
            throw new RaasException("no driver named '" + driverDirectory.getFileName() + "' runs on this host, nor " +
                "left errors (no " + cncFile + ")");
        }
        catch (final IOException ex)
        {
            throw new RaasException("cannot read " + cncFile + ": " + ex, ex);
        }
    }
}
