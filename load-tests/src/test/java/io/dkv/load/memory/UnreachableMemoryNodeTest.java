package io.dkv.load.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node that stops answering (its process paused with SIGSTOP, over tcp, where its NIC
 * engine is its own thread) makes operations fail within the client's timeout with an error that
 * names it, not hang; once it runs again, operations succeed.
 */
class UnreachableMemoryNodeTest
{
    private static final long MEMORY_NODE = 211;

    @Test
    void aPausedNodeTimesOutByNameAndServesAgainWhenResumed(@TempDir final Path dir) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        try (RoleProcess meta = RoleProcess.start("MetaServer", "256m", Map.of(),
                List.of("meta", "--cluster-secret-file", secret.toString(), "--node-id", "1", "--provider", "tcp",
                    "--data-dir", dir.resolve("meta").toString()), ReadyLines.META,
                dir.resolve("meta.log"));
            RoleProcess node = RoleProcess.start("memory node", "256m", Map.of(),
                List.of("memory-node", "--cluster-secret-file", secret.toString(), "--node-id",
                    Long.toString(MEMORY_NODE),
                    "--provider", "tcp", "--meta", meta.readyGroup(1),
                    "--index-groups", "1024", "--heap-chunks", "4"), ReadyLines.MEMORY_NODE, dir.resolve("node.log"));
            Raas raas =
                RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("tcp").tcpAddress("127.0.0.1:0"))
                .nodeId(311).timeoutMs(1_000), MetaDirectory.of(secret, MetaEndpoint.parse(meta.readyGroup(1))));
            KvClient client = KvClient.connect(raas, new KvClientContext().memoryNodes(MEMORY_NODE).timeoutMs(1_000)))
        {
            final byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            client.put(key, "before".getBytes(StandardCharsets.UTF_8));
            node.pause();
            try
            {
                // a hang, not a slow machine, is what the bound catches: the client gives up after its 1 s timeout
                final KvException timedOut = assertTimeoutPreemptively(Duration.ofMinutes(1),
                    () -> assertThrows(KvException.class, () -> client.get(key)));
                assertTrue(timedOut.getMessage().contains("memory node " + MEMORY_NODE), timedOut.getMessage());
            }
            finally
            {
                node.resume();
            }
            byte[] read = null;
            for (int attempt = 0; attempt < 5 && read == null; attempt++)
            {
                try
                {
                    read = client.get(key);
                }
                catch (final KvException stillCatchingUp)
                {
                    Thread.sleep(100);
                }
            }
            assertArrayEquals("before".getBytes(StandardCharsets.UTF_8), read);
        }
    }
}
