package io.dkv.agent;

import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent with no cnc file keeps its errors in an error file of its own, where another process reads them while it
 * runs and after it stopped; a clean close with nothing recorded leaves no file, nor does a killed agent that had
 * recorded nothing once the next agent starts.
 */
class ErrorFileTest
{
    @TempDir
    Path directory;

    private final CachedEpochClock clock = new CachedEpochClock();

    @Test
    void errorsAreReadFromTheFileWhileTheAgentRunsAndAfterItStops()
    {
        clock.update(1_700_000_000_000L);
        final ErrorFile file = ErrorFile.create(directory, "memory-node-7", 64 * 1024, clock);
        assertEquals(directory.resolve("memory-node-7" + ErrorFileDescriptor.SUFFIX), file.file());
        final String pid = "pid " + ProcessHandle.current().pid();
        assertEquals("memory-node-7 (" + pid + ", running, started 2023-11-14T22:13:20Z): no errors recorded\n",
            ErrorFile.report(file.file()));

        final IllegalStateException error = new IllegalStateException("a request could not be served");
        file.errorLog().onError(error);
        clock.update(1_700_000_005_000L);
        file.errorLog().onError(error);

        final String running = ErrorFile.report(file.file());
        assertTrue(running.startsWith("memory-node-7 (" + pid + ", running, started 2023-11-14T22:13:20Z):\n" +
            "2 observations, first 2023-11-14T22:13:20Z, last 2023-11-14T22:13:25Z:\n"), running);
        assertTrue(running.contains("java.lang.IllegalStateException: a request could not be served"), running);

        file.close();
        final String stopped = ErrorFile.report(file.file());
        assertTrue(stopped.startsWith("memory-node-7 (" + pid + ", stopped, "), stopped);
        assertTrue(stopped.contains("2 observations"), stopped);
        assertEquals(stopped, ErrorFile.reportAll(directory, "memory-node-"));
    }

    @Test
    void aCleanCloseWithNoErrorLeavesNoFile()
    {
        final ErrorFile file = ErrorFile.create(directory, "meta-server-1", 4096, clock);
        assertTrue(Files.exists(file.file()));
        file.close();
        assertFalse(Files.exists(file.file()));
        final IllegalStateException none =
            assertThrows(IllegalStateException.class, () -> ErrorFile.report(file.file()));
        assertEquals("no error file " + file.file() + ": no such agent runs on this host, nor left errors",
            none.getMessage());
        assertEquals("no meta-server-* error files in " + directory + ": none runs on this host, nor left errors\n",
            ErrorFile.reportAll(directory, "meta-server-"));
    }

    @Test
    void theNextAgentSweepsTheFilesOfKilledAgentsThatRecordedNothingAndKeepsTheOthers() throws Exception
    {
        final long deadPid = deadProcessId();
        final ErrorFile quiet = ErrorFile.create(directory, "memory-node-1", 4096, clock);
        final ErrorFile failing = ErrorFile.create(directory, "memory-node-2", 64 * 1024, clock);
        failing.errorLog().onError(new IllegalStateException("lost a chunk"));
        // neither closes: as if killed
        claimPid(quiet.file(), deadPid);
        claimPid(failing.file(), deadPid);

        try (ErrorFile next = ErrorFile.create(directory, "memory-node-3", 4096, clock))
        {
            assertFalse(Files.exists(quiet.file()), "a killed agent's file with no error is swept");
            assertTrue(Files.exists(failing.file()), "a killed agent's errors stay to be read");
            final String report = ErrorFile.reportAll(directory, "memory-node-");
            assertTrue(report.startsWith("memory-node-2 (pid " + deadPid + ", stopped, "), report);
            assertTrue(report.contains("lost a chunk"), report);
            assertTrue(report.contains("memory-node-3 (pid " + ProcessHandle.current().pid() + ", running, "), report);
        }
    }

    @Test
    void aFileThatIsNotAnErrorFileIsRefusedByName() throws IOException
    {
        final Path file = directory.resolve("stranger" + ErrorFileDescriptor.SUFFIX);
        Files.write(file, new byte[10]);
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> ErrorFile.report(file));
        assertEquals(file + " (10 bytes) is not an error file of version " + ErrorFileDescriptor.VERSION +
            ": another dkv version's, or one still starting", refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ErrorFile.create(directory, "x", 100, clock));
    }

    private static long deadProcessId() throws Exception
    {
        final Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }

    private static void claimPid(final Path file, final long pid) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, pid),
                ErrorFileDescriptor.PID_OFFSET);
        }
    }
}
