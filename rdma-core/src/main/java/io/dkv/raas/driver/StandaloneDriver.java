package io.dkv.raas.driver;

import io.dkv.agent.CountersFile;
import io.dkv.agent.ErrorLog;
import io.dkv.agent.IdleStrategies;
import io.dkv.raas.Directory;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.cnc.CncHeaderFlyweight;
import io.dkv.verbs.soft.ProcessLiveness;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

/**
 * A RaaS driver in a process of its own ({@code ./dkv driver}), shared by every process of the
 * host: applications attach through its command-and-control file ({@link CncDescriptor}), so one
 * QP pool and one set of connections to each peer serve them all.
 */
public final class StandaloneDriver implements AutoCloseable
{

    private final RaasDriver driver;
    private final Path directory;
    private final Path cncFile;
    /** The driver's counters, which other processes read ({@code ./dkv driver --counters}). */
    private final CountersFile counters;
    private final Arena arena = Arena.ofShared();
    private final CncHeaderFlyweight cnc = new CncHeaderFlyweight();
    private final DriverConductor conductor;
    private final AgentRunner runner;
    private ErrorLog errorLog;
    private volatile boolean closed;

    private StandaloneDriver(final RaasContext context, final Directory directory)
    {
        context.startAgents(false).conclude();
        this.directory = CncDescriptor.driverDirectory(context.cncDirectory(), context.driverName());
        this.cncFile = this.directory.resolve(CncDescriptor.CNC_FILE);
        prepareDirectory(context);
        counters = CountersFile.create(this.directory.resolve(CncDescriptor.COUNTERS_FILE), context.maxCounters(),
            context.epochClock());
        try
        {
            this.driver = RaasDriver.start(context.countersManager(counters.manager()), directory);
        }
        catch (final RuntimeException ex)
        {
            // nothing runs under the name: leave no directory that says otherwise
            counters.close();
            removeIfEmpty(this.directory);
            throw ex;
        }
        try
        {
            final int ringLength = context.commandRingBytes();
            final int errorLogLength = context.errorLogBytes();
            final long length = CncDescriptor.cncLength(ringLength, errorLogLength);
            final Path temporary = this.directory.resolve(CncDescriptor.CNC_FILE + ".new");
            final MemorySegment mapping;
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                channel.truncate(length);
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
            }
            cnc.wrap(new UnsafeBuffer(mapping.address(), CncDescriptor.CNC_HEADER_LENGTH))
                .toDriverLength(ringLength)
                .driverPid(ProcessHandle.current().pid())
                .heartbeat(CncDescriptor.heartbeatClock(context.nanoClock()).time())
                .nodeId(driver.self().id())
                .clientTimeoutMs(context.clientTimeoutMs())
                .driverTimeoutMs(context.driverTimeoutMs())
                .errorLogLength(errorLogLength)
                .publish();
            final ManyToOneRingBuffer commands = new ManyToOneRingBuffer(new UnsafeBuffer(
                mapping.address() + CncDescriptor.CNC_HEADER_LENGTH, ringLength + RingBufferDescriptor.TRAILER_LENGTH));
            Files.move(temporary, cncFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            conductor = new DriverConductor(driver, CncDescriptor.heartbeatClock(context.nanoClock()),
                context.clientTimeoutMs(), this.directory, cnc, commands, context);
            errorLog = new ErrorLog(new UnsafeBuffer(mapping.address() + CncDescriptor.errorLogOffset(ringLength),
                errorLogLength), context.epochClock());
            // a client rings the doorbell after each command: the conductor sleeps on it rather than yield its core
            runner = new AgentRunner(IdleStrategies.parse(context.conductorIdleStrategy(), cnc.doorbell(),
                () -> commands.size() > 0), errorLog,
                driver.counters().get(DriverCounter.ERRORS), conductor);
            AgentRunner.startOnThread(runner);
        }
        catch (final IOException ex)
        {
            driver.close();
            counters.close();
            throw new RaasException("cannot create command-and-control file " + cncFile + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            counters.close();
            throw ex;
        }
    }

    private static void removeIfEmpty(final Path directory)
    {
        try
        {
            Files.deleteIfExists(directory);
        }
        catch (final IOException notEmpty)
        {
            // files of an earlier driver are there: the next start under the name sweeps them
        }
    }

    /**
     * Start a standalone driver named by the context, refusing if a live one already has the name.
     */
    public static StandaloneDriver launch(final RaasContext context, final Directory directory)
    {
        return new StandaloneDriver(context, directory);
    }

    private void prepareDirectory(final RaasContext context)
    {
        try
        {
            Files.createDirectories(directory);
            if (Files.exists(cncFile))
            {
                try (FileChannel channel = FileChannel.open(cncFile, StandardOpenOption.READ);
                    Arena probe = Arena.ofConfined())
                {
                    if (channel.size() >= CncDescriptor.CNC_HEADER_LENGTH)
                    {
                        final MemorySegment mapped =
                            channel.map(FileChannel.MapMode.READ_ONLY, 0, CncDescriptor.CNC_HEADER_LENGTH, probe);
                        final CncHeaderFlyweight header = new CncHeaderFlyweight()
                            .wrap(new UnsafeBuffer(mapped.address(), CncDescriptor.CNC_HEADER_LENGTH));
                        final long pid = header.driverPid();
                        final boolean beating =
                            CncDescriptor.heartbeatClock(context.nanoClock()).time() - header.heartbeat() <=
                            context.driverTimeoutMs();
                        if (!header.isClosed() && beating && ProcessLiveness.isAlive(pid))
                        {
                            throw new RaasException("a driver named '" + context.driverName() + "' already runs (pid " +
                                pid + ", " + cncFile + ")");
                        }
                    }
                }
            }
            try (Stream<Path> stale = Files.list(directory))
            {
                stale.forEach(path ->
                {
                    try
                    {
                        Files.deleteIfExists(path);
                    }
                    catch (final IOException ignore)
                    {
                        // left behind; harmless
                    }
                });
            }
        }
        catch (final IOException ex)
        {
            throw new RaasException("cannot prepare driver directory " + directory + ": " + ex, ex);
        }
    }

    public RaasDriver driver()
    {
        return driver;
    }

    /** @return the directory holding the command-and-control file and the clients' files. */
    public Path directory()
    {
        return directory;
    }

    /** @return the conductor's errors, kept in the cnc file. */
    public ErrorLog errorLog()
    {
        return errorLog;
    }

    /** @return the counters file, which other processes read. */
    public Path countersFile()
    {
        return counters.file();
    }

    /** @return clients attached now. */
    public int clientCount()
    {
        return conductor.clientCount();
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        CloseHelper.quietClose(runner);
        cnc.markClosed();
        driver.close();
        counters.close();
        if (errorLog != null && errorLog.errors() > 0)
        {
            // the file stays, marked closed, for ./dkv driver --errors; the next start under the name replaces it
            System.err.println("dkv driver '" + directory.getFileName() + "' recorded " + errorLog.errors() +
                " error(s): ./dkv driver --errors --name " + directory.getFileName() + " shows them");
            arena.close();
            return;
        }
        try
        {
            Files.deleteIfExists(cncFile);
            Files.deleteIfExists(directory);
        }
        catch (final IOException ignore)
        {
            // clients' files still there, or the next driver start replaces them
        }
        arena.close();
    }
}
