package io.dkv.load.memory;

import io.dkv.memory.command.MemoryNodeCommand;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./dkv memory-node} without {@code --join} on a store founded without it: the MetaServer refuses the node,
 * which would otherwise found again and serve the keys placed on it as absent, and the command exits non-zero,
 * printing the MetaServer's reason, which says how to join. In this process: a MetaServer, a founder, the command.
 */
class MemoryNodeCommandTest
{
    private static final long FOUNDER = 251;
    private static final long LATECOMER = 252;

    @Test
    void aPlainStartOnAFoundedStoreExitsNonZeroSayingHowToJoin(@TempDir final Path dir)
    {
        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        final MetaServerContext context = new MetaServerContext().nodeId(1).dataDir(dir.resolve("meta"))
            .clusterSecretFile(secret).founders(FOUNDER);
        context.raas().verbs(new VerbsContext().provider("shm"));
        try (MetaServer meta = MetaServer.start(context);
            Raas founder = RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("shm"))
                .nodeId(FOUNDER).role(NodeRecord.ROLE_MEMORY), MetaDirectory.of(secret, meta.endpoint())))
        {
            final StringWriter err = new StringWriter();
            final int status = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> DkvCommandLine
                .of(new MemoryNodeCommand()).setErr(new PrintWriter(err))
                .execute("--node-id", Long.toString(LATECOMER), "--provider", "shm", "--meta",
                    meta.endpoint().toString(), "--cluster-secret-file", secret.toString(), "--index-groups", "1024",
                    "--heap-chunks", "4"), "the node started and serves, founding the store again");
            assertEquals(1, status, err.toString());
            assertTrue(err.toString().startsWith("dkv memory-node: memory node " + LATECOMER + " cannot start: "),
                err.toString());
            assertTrue(err.toString().contains("memory node " + LATECOMER + " is no member of this store (founded by " +
                FOUNDER + "): start it with --join to add it by moving keys to it"), err.toString());
            assertNull(meta.node(LATECOMER), "not registered");
            assertEquals(0, meta.membership().state(LATECOMER));
        }
    }
}
