package io.dkv.load.memory;

import io.dkv.client.Durability;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node process killed with SIGKILL while a client writes under durability sync, then
 * started again on its data directory: every put acknowledged before the kill is read back with
 * its last value (or with the value of a later put whose outcome the client could not know).
 */
class MemoryNodeCrashTest
{
    private static final long MEMORY_NODE = 201;
    private static final long CLIENT_NODE = 301;
    private static final int KEYS = 300;
    private static final Pattern NODE_READY = Pattern.compile("dkv memory node (\\d+) serving .*, (\\d+) loaded");

    @Test
    void everyAcknowledgedPutSurvivesAKillAndRestart(@TempDir final Path dir) throws Exception
    {
        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        final RoleProcess meta = RoleProcess.start("MetaServer", "256m", Map.of(),
            List.of("meta", "--cluster-secret-file", secret.toString(), "--node-id", "1", "--data-dir",
                dir.resolve("meta").toString()),
            ReadyLines.META, dir.resolve("meta.log"));
        final String endpoint = meta.readyGroup(1);
        final List<String> nodeArguments = List.of("memory-node", "--cluster-secret-file", secret.toString(),
            "--node-id", Long.toString(MEMORY_NODE), "--meta", endpoint,
            "--data-dir", dir.resolve("data").toString(), "--index-groups", "1024", "--heap-chunks", "16");
        RoleProcess node =
            RoleProcess.start("memory node", "256m", Map.of(), nodeArguments, NODE_READY, dir.resolve("node-1.log"));
        final Map<String, String> acknowledged = new HashMap<>();
        final Map<String, Set<String>> unknown = new HashMap<>();
        final RaasContext context =
            new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(CLIENT_NODE).timeoutMs(2_000);
        try (Raas raas = RaasDriver.start(context, MetaDirectory.of(secret, MetaEndpoint.parse(endpoint)));
            KvClient client = KvClient.connect(raas,
                new KvClientContext().memoryNodes(MEMORY_NODE).durability(Durability.SYNC).timeoutMs(2_000)
                    // reads the node anew at each put: how soon after its restart the puts succeed is not in question
                    .unavailableRetryMs(0)))
        {
            int written = 0;
            for (; written < 1_500; written++)
            {
                put(client, written, acknowledged, unknown);
            }
            node.kill();
            int failures = 0;
            for (int i = 0; i < 20; i++, written++)
            {
                failures += put(client, written, acknowledged, unknown) ? 0 : 1;
            }
            assertEquals(20, failures, "puts to a dead node fail");

            node = RoleProcess.start("memory node", "256m", Map.of(), nodeArguments, NODE_READY,
                dir.resolve("node-2.log"));
            assertEquals(KEYS, Integer.parseInt(node.readyGroup(2)), "keys loaded from disk");
            final int after = written + 500;
            int succeeded = 0;
            for (; written < after; written++)
            {
                succeeded += put(client, written, acknowledged, unknown) ? 1 : 0;
            }
            assertTrue(succeeded >= 490, succeeded + " of 500 puts after the restart succeeded");

            node.kill();
            node = RoleProcess.start("memory node", "256m", Map.of(), nodeArguments, NODE_READY,
                dir.resolve("node-3.log"));
            for (int k = 0; k < KEYS; k++)
            {
                final String key = "key-" + k;
                final byte[] read = readEventually(client, key);
                final String value = read == null ? null : new String(read, StandardCharsets.UTF_8);
                final boolean expected = value != null && value.equals(acknowledged.get(key)) ||
                    unknown.getOrDefault(key, Set.of()).contains(value);
                assertTrue(expected, key + " reads " + value + "; last acknowledged " + acknowledged.get(key) +
                    ", unknown outcomes since " + unknown.getOrDefault(key, Set.of()));
            }
        }
        finally
        {
            node.close();
            meta.close();
        }
    }

    /** @return true when acknowledged; a failed put's value may or may not have been written. */
    private static boolean put(
        final KvClient client, final int i, final Map<String, String> acknowledged,
        final Map<String, Set<String>> unknown)
    {
        final String key = "key-" + (i % KEYS);
        final String value = "value-" + i;
        try
        {
            client.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            acknowledged.put(key, value);
            unknown.remove(key);
            return true;
        }
        catch (final KvException ex)
        {
            unknown.computeIfAbsent(key, ignored -> new HashSet<>()).add(value);
            return false;
        }
    }

    private static byte[] readEventually(final KvClient client, final String key)
    {
        KvException last = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                return client.get(key.getBytes(StandardCharsets.UTF_8));
            }
            catch (final KvException ex)
            {
                last = ex;
            }
        }
        throw last;
    }
}
