package io.dkv.memory;

import io.dkv.agent.ErrorFile;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Given the host's error directory, a memory node keeps its request server's errors in {@code memory-node-<id>}
 * there, where {@code ./dkv memory-node --errors} reads them while it runs and after it stopped.
 */
class MemoryNodeErrorsTest
{
    private static final long NODE = 9;

    @Test
    void aNodesErrorsAreReadFromItsErrorFileWhileItRunsAndAfterItStops(@TempDir final Path errors)
    {
        final Path file = ErrorFile.fileOf(errors, "memory-node-" + NODE);
        try (Raas raas = RaasDriver.start(KvCluster.context("shm", NODE), new StaticDirectory()))
        {
            final MemoryNode node = MemoryNode.start(raas,
                new MemoryNodeContext().indexGroups(1024).chunkBytes(1 << 20).heapChunks(4).errorDirectory(errors));
            assertTrue(ErrorFile.report(file).contains(", running, started "), ErrorFile.report(file));
            assertTrue(ErrorFile.report(file).endsWith("): no errors recorded\n"), ErrorFile.report(file));

            node.errorLog().onError(new IllegalStateException("a chunk request named no client"));
            final String running = ErrorFile.reportAll(errors, MemoryNode.ERROR_FILE_PREFIX);
            assertTrue(running.startsWith("memory-node-" + NODE + " (pid "), running);
            assertTrue(running.contains(", running, "), running);
            assertTrue(running.contains("a chunk request named no client"), running);
            node.close();
        }
        final String stopped = ErrorFile.report(file);
        assertTrue(stopped.contains(", stopped, "), stopped);
        assertTrue(stopped.contains("1 observation, first "), stopped);
    }

    @Test
    void aNodeThatRecordedNoErrorLeavesNoFile(@TempDir final Path errors)
    {
        try (Raas raas = RaasDriver.start(KvCluster.context("shm", NODE + 1), new StaticDirectory()))
        {
            final MemoryNode node = MemoryNode.start(raas,
                new MemoryNodeContext().indexGroups(1024).chunkBytes(1 << 20).heapChunks(4).errorDirectory(errors));
            assertTrue(Files.exists(ErrorFile.fileOf(errors, MemoryNode.errorFileName(NODE + 1))));
            node.close();
        }
        assertFalse(Files.exists(ErrorFile.fileOf(errors, MemoryNode.errorFileName(NODE + 1))));
    }
}
