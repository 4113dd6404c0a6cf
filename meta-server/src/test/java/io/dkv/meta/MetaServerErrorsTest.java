package io.dkv.meta;

import io.dkv.agent.ErrorFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Given the host's error directory, a MetaServer keeps its service agent's errors in {@code meta-server-<id>} there,
 * where {@code ./dkv meta --errors} reads them while it runs and after it stopped; with none recorded it leaves no
 * file.
 */
class MetaServerErrorsTest
{
    @TempDir
    Path dir;

    @Test
    void aServersErrorsAreReadFromItsErrorFileWhileItRunsAndAfterItStops()
    {
        final Path errors = dir.resolve("errors");
        final Path file = ErrorFile.fileOf(errors, MetaServer.errorFileName(100));
        try (MetaServer server = MetaServer.start(MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"),
            100, dir.resolve("data")).errorDirectory(errors)))
        {
            assertTrue(ErrorFile.report(file).startsWith("meta-server-100 (pid "), ErrorFile.report(file));
            assertTrue(ErrorFile.report(file).endsWith("): no errors recorded\n"), ErrorFile.report(file));
            server.errorLog().onError(new IllegalStateException("a peer sent a frame of no known kind"));
            final String running = ErrorFile.reportAll(errors, MetaServer.ERROR_FILE_PREFIX);
            assertTrue(running.contains(", running, "), running);
            assertTrue(running.contains("a peer sent a frame of no known kind"), running);
        }
        final String stopped = ErrorFile.report(file);
        assertTrue(stopped.contains(", stopped, "), stopped);
        assertTrue(stopped.contains("1 observation, first "), stopped);

        try (MetaServer quiet = MetaServer.start(MetaTestSupport.serverContext(MetaTestSupport.fixedAddress("shm"),
            100, dir.resolve("data")).errorDirectory(errors)))
        {
            assertTrue(ErrorFile.report(file).endsWith("): no errors recorded\n"), "the restarted server's file");
        }
        assertFalse(Files.exists(file), "a server that recorded no error leaves no file");
    }
}
