package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's own tools and libraries work against a compute node unchanged: redis-cli (the real binary) and Jedis, with a
 * password required as {@code --requirepass} sets it.
 */
class RedisClientsTest
{
    private static final String PASSWORD = "s3cret";
    private static TestStore store;

    @TempDir
    Path dir;

    @BeforeAll
    static void start()
    {
        store = new TestStore(new ComputeNodeContext().requirePass(PASSWORD));
    }

    @AfterAll
    static void stop()
    {
        CloseHelper.close(store);
    }

    @Test
    void redisCliPingsSetsAndGets() throws Exception
    {
        final String cli = RedisServer.binary("redis-cli");
        if (cli == null)
        {
            System.out.println("RedisClientsTest.redisCliPingsSetsAndGets skipped: redis-cli is not installed");
        }
        Assumptions.assumeTrue(cli != null, "redis-cli is not installed (.ci/run installs redis-server, which has it)");
        assertEquals("PONG", redisCli(cli, "ping"));
        assertEquals("OK", redisCli(cli, "set", "cli-key", "from redis-cli"));
        assertEquals("from redis-cli", redisCli(cli, "get", "cli-key"));
        assertEquals("3", redisCli(cli, "incrby", "cli-counter", "3"));
        assertEquals("", redisCli(cli, "get", "cli-missing"));
    }

    /**
     * {@code redis-cli -c} over two compute nodes of one store: keys of both nodes' slot ranges are set through one and
     * read through the other, each served where it was sent, so no reply is a redirection (MOVED or ASK, which
     * redis-cli would follow and print) and none loops. {@code redis-cli --cluster check} finds both nodes, agreeing
     * on the slots and covering all 16384; it reports DBSIZE's error (dkv keeps no count of keys), and goes on.
     */
    @Test
    void redisCliInClusterModeSetsAndGetsKeysOfBothNodesSlotsThroughEitherNode() throws Exception
    {
        final String cli = RedisServer.binary("redis-cli");
        Assumptions.assumeTrue(cli != null, "redis-cli is not installed (.ci/run installs redis-server, which has it)");
        try (TwoComputeNodes nodes = new TwoComputeNodes(dir, PASSWORD))
        {
            final int keys = 40;
            final StringBuilder sets = new StringBuilder();
            final StringBuilder gets = new StringBuilder();
            for (int i = 0; i < keys; i++)
            {
                sets.append("SET cli-cluster-").append(i).append(" v").append(i).append('\n');
                gets.append("CLUSTER KEYSLOT cli-cluster-").append(i).append("\nGET cli-cluster-").append(i)
                    .append('\n');
            }
            final String set = redisCli(cli, nodes.first().port(), sets.toString(), "-c");
            assertEquals(String.join("\n", java.util.Collections.nCopies(keys, "OK")), set);
            final List<String> got = redisCli(cli, nodes.second().port(), gets.toString(), "-c").lines().toList();
            assertEquals(2 * keys, got.size(), () -> "a slot and a value per key, no redirection: " + got);
            final Set<Integer> owners = new TreeSet<>();
            for (int i = 0; i < keys; i++)
            {
                owners.add(nodes.portOfSlot(Integer.parseInt(got.get(2 * i))));
                assertEquals("v" + i, got.get(2 * i + 1));
            }
            assertEquals(Set.of(nodes.first().port(), nodes.second().port()), owners, "keys of both nodes' slots");

            final String check = redisCli(cli, 0, "", "--cluster", "check", "127.0.0.1:" + nodes.first().port());
            assertTrue(check.contains(nodes.first().port() + "\n   slots:[0-8191] (8192 slots) master") &&
                check.contains(nodes.second().port() + "\n   slots:[8192-16383] (8192 slots) master") &&
                check.contains("[OK] All nodes agree about slots configuration.") &&
                check.contains("[OK] All 16384 slots covered."), check);
        }
    }

    private static String redisCli(final String cli, final String... args) throws IOException, InterruptedException
    {
        return redisCli(cli, store.port(), "", args);
    }

    /**
     * @param port  the node's port, or 0 to give none (as for {@code --cluster check HOST:PORT}).
     * @param stdin the commands for it to read, one a line, or "" for none.
     */
    private static String redisCli(final String cli, final int port, final String stdin, final String... args)
        throws IOException, InterruptedException
    {
        final List<String> command = new java.util.ArrayList<>(List.of(cli, "--no-auth-warning", "-a", PASSWORD));
        if (port != 0)
        {
            command.addAll(List.of("-p", Integer.toString(port)));
        }
        command.addAll(Arrays.asList(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = process.getOutputStream())
        {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "redis-cli did not finish");
        assertEquals(0, process.exitValue(), () -> "redis-cli " + command + " said: " + output);
        return output;
    }

    @Test
    void jedisWorksUnchanged()
    {
        try (Jedis jedis = new Jedis("127.0.0.1", store.port()))
        {
            assertTrue(assertThrows(Exception.class, () -> jedis.get("j")).getMessage().contains("NOAUTH"));
            assertTrue(assertThrows(Exception.class, () -> jedis.auth("wrong")).getMessage().contains("WRONGPASS"));
            assertEquals("OK", jedis.auth(PASSWORD));
            assertEquals("PONG", jedis.ping());
            assertEquals("OK", jedis.set("j", "v1"));
            assertEquals("v1", jedis.get("j"));
            assertEquals(5, jedis.incrBy("j-counter", 5));
            assertEquals(4, jedis.decr("j-counter"));
            assertEquals(Arrays.asList("v1", null, "4"), jedis.mget("j", "j-none", "j-counter"));
            assertEquals(1, jedis.msetnx("j-a", "1", "j-b", "2"));
            assertEquals(0, jedis.msetnx("j-b", "3", "j-c", "4"));
            assertNull(jedis.get("j-c"), "a refused MSETNX sets none of its keys");
            assertEquals(2, jedis.exists("j-a", "j-b"));
            assertEquals(5, jedis.append("j", "+v2"));
            assertEquals("v1+v2", jedis.getDel("j"));
            assertEquals(0, jedis.del("j"));
            assertEquals("OK", jedis.set("j-ttl", "v", SetParams.setParams().ex(1_000)));
            assertTrue(jedis.ttl("j-ttl") > 900, "a key set with EX 1000 has about 1000 s left");
            assertEquals(1, jedis.pexpire("j-ttl", 2_000_000));
            assertTrue(jedis.pttl("j-ttl") > 1_900_000, "PEXPIRE sets the time left");
            assertEquals(1, jedis.persist("j-ttl"));
            assertEquals(-1, jedis.ttl("j-ttl"));
            final Pipeline pipeline = jedis.pipelined();
            for (int i = 0; i < 100; i++)
            {
                pipeline.incr("j-pipelined");
            }
            final List<Object> replies = pipeline.syncAndReturnAll();
            assertEquals(100L, replies.get(99));
            assertTrue(jedis.info("stats").contains("total_commands_processed:"));
        }
    }

    @Test
    void jedisServesHashesAndSets()
    {
        try (Jedis jedis = new Jedis("127.0.0.1", store.port()))
        {
            jedis.auth(PASSWORD);
            assertEquals(2, jedis.hset("j-hash", Map.of("a", "1", "b", "2")));
            assertEquals("2", jedis.hget("j-hash", "b"));
            assertEquals(Map.of("a", "1", "b", "2"), jedis.hgetAll("j-hash"));
            assertEquals(3.5, jedis.hincrByFloat("j-hash", "c", 3.5));
            assertEquals(Arrays.asList("1", null), jedis.hmget("j-hash", "a", "none"));
            final ScanResult<Map.Entry<String, String>> page = jedis.hscan("j-hash", ScanParams.SCAN_POINTER_START);
            assertEquals(ScanParams.SCAN_POINTER_START, page.getCursor(), "a small hash comes whole");
            assertEquals(3, page.getResult().size());
            assertEquals(2, jedis.sadd("j-set", "m1", "m2"));
            assertEquals(Set.of("m1", "m2"), jedis.smembers("j-set"));
            assertTrue(Set.of("m1", "m2").contains(jedis.spop("j-set")));
            assertEquals(1, jedis.scard("j-set"));
            assertEquals("hash", jedis.type("j-hash"));
            assertTrue(assertThrows(Exception.class, () -> jedis.sadd("j-hash", "x")).getMessage()
                .startsWith("WRONGTYPE"));
            assertEquals(2, jedis.del("j-hash", "j-set"));
        }
    }
}
