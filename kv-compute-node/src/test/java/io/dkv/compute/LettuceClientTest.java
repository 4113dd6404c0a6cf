package io.dkv.compute;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.CompareCondition;
import io.lettuce.core.ConnectionState;
import io.lettuce.core.GetExArgs;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ProtocolVersion;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lettuce works against compute nodes unchanged, as it comes: its standalone client negotiates RESP3 with
 * {@code HELLO 3 AUTH default PASS} (its default), runs the sync and async APIs and pipelines with its auto-flush off;
 * its cluster client, seeded with one of two compute nodes of one store, reads the topology (CLUSTER NODES and INFO
 * on each node), routes keys of both halves of the slots to their node, splits a cross-slot MGET, and what it writes
 * is read through either node.
 */
class LettuceClientTest
{
    private static final String PASSWORD = "s3cret";
    /** Generous: a deadline for a reply on two busy cores, never a measure of speed. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static TestStore store;
    private static RedisClient client;

    @TempDir
    Path dir;

    @BeforeAll
    static void start()
    {
        store = new TestStore(new ComputeNodeContext().requirePass(PASSWORD));
        client = RedisClient.create();
    }

    @AfterAll
    static void stop()
    {
        if (client != null)
        {
            client.shutdown();
        }
        CloseHelper.close(store);
    }

    @Test
    void connectsWithHello3AndAuthAsLettuceDoesByDefault()
    {
        try (StatefulRedisConnection<String, String> connection = client.connect(uri(store.port(), PASSWORD)))
        {
            final ConnectionState state =
                ((StatefulRedisConnectionImpl<String, String>)connection).getConnectionState();
            assertEquals(ProtocolVersion.RESP3, state.getNegotiatedProtocolVersion(), "HELLO 3 was answered");
            assertEquals("cluster", state.getMode());
            assertEquals("master", state.getRole());
            final RedisCommands<String, String> sync = connection.sync();
            assertEquals(sync.clientId(), state.getConnectionId(), "HELLO's id is the connection's CLIENT ID");
            assertEquals("PONG", sync.ping());
            assertNull(sync.get("lettuce-never-set"), "RESP3's null reads as null");
        }
        final RedisClient resp2 = RedisClient.create();
        resp2.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        try (StatefulRedisConnection<String, String> connection = resp2.connect(uri(store.port(), PASSWORD)))
        {
            assertEquals(ProtocolVersion.RESP2,
                ((StatefulRedisConnectionImpl<String, String>)connection).getConnectionState()
                    .getNegotiatedProtocolVersion(), "RESP2 asked for: AUTH, no HELLO");
            assertEquals("OK", connection.sync().set("lettuce-resp2", "v"));
            assertEquals("v", connection.sync().get("lettuce-resp2"));
        }
        finally
        {
            resp2.shutdown();
        }
    }

    @Test
    void aWrongOrMissingPasswordFailsTheConnectWithRedissError()
    {
        final String wrong = failedConnect("wrong");
        assertTrue(wrong.contains("WRONGPASS"), wrong);
        final String missing = failedConnect(null);
        assertTrue(missing.contains("NOAUTH"), missing);
    }

    /**
     * @return why a connect with the password failed. Lettuce's connect can lose the handshake's error to a race of
     * its own (its handshake handler gone from the pipeline before its connect listener looks for it: "RedisHandshake
     * Handler not registered", seen once on a loaded machine): such a connect is tried again, a few times.
     */
    private String failedConnect(final String password)
    {
        String why = "";
        for (int attempt = 0; attempt < 3; attempt++)
        {
            why = causes(assertThrows(RedisConnectionException.class,
                () -> client.connect(uri(store.port(), password)).close()));
            if (!why.contains("RedisHandshakeHandler not registered"))
            {
                return why;
            }
        }
        return why;
    }

    @Test
    void syncCommandsSetWithOptionsExpiryCountersAndMget()
    {
        try (StatefulRedisConnection<String, String> connection = client.connect(uri(store.port(), PASSWORD)))
        {
            final RedisCommands<String, String> sync = connection.sync();
            assertEquals("OK", sync.set("l-key", "v1"));
            assertEquals("v1", sync.get("l-key"));
            assertNull(sync.set("l-key", "v2", SetArgs.Builder.nx()), "NX on a key that is set: nil");
            assertEquals("OK", sync.set("l-key", "v2", SetArgs.Builder.xx()));
            assertNull(sync.set("l-none", "v", SetArgs.Builder.xx()), "XX on a missing key: nil");
            assertEquals("v2", sync.setGet("l-key", "v3"));
            assertEquals("OK", sync.set("l-key", "v4",
                SetArgs.Builder.compareCondition(CompareCondition.valueEq("v3"))), "IFEQ with the value: set");
            assertNull(sync.set("l-key", "v5", SetArgs.Builder.compareCondition(CompareCondition.valueEq("v3"))),
                "IFEQ with another value: nil");
            assertEquals("v4", sync.get("l-key"));

            assertEquals("OK", sync.set("l-ttl", "v", SetArgs.Builder.ex(1_000)));
            final long ttl = sync.ttl("l-ttl");
            assertTrue(ttl > 900 && ttl <= 1_000, () -> "EX 1000 leaves about 1000 s: " + ttl);
            assertEquals("OK", sync.set("l-ttl", "w", SetArgs.Builder.keepttl()));
            assertTrue(sync.ttl("l-ttl") > 900, "KEEPTTL keeps the expiry");
            assertEquals("OK", sync.set("l-ttl", "x", SetArgs.Builder.px(2_000_000)));
            assertTrue(sync.pttl("l-ttl") > 1_900_000);
            assertTrue(sync.persist("l-ttl"));
            assertEquals(-1L, sync.ttl("l-ttl"));
            assertTrue(sync.expire("l-ttl", 5_000));
            assertEquals("x", sync.getex("l-ttl", GetExArgs.Builder.persist()));
            assertEquals(-1L, sync.ttl("l-ttl"));
            assertTrue(sync.expireat("l-ttl", 1), "EXPIREAT in the past deletes the key");
            assertNull(sync.get("l-ttl"));
            assertEquals(-2L, sync.ttl("l-ttl"));

            assertEquals(1L, sync.incr("l-counter"));
            assertEquals(11L, sync.incrby("l-counter", 10));
            assertEquals(10L, sync.decr("l-counter"));
            assertEquals(3L, sync.decrby("l-counter", 7));
            assertEquals(3L, sync.append("l-counter", "0x"), "\"3\" then \"0x\"");
            assertEquals(3L, sync.strlen("l-counter"));

            assertEquals("OK", sync.mset(Map.of("l-m1", "1", "l-m2", "2")));
            assertFalse(sync.msetnx(Map.of("l-m2", "x", "l-m3", "3")), "MSETNX refuses when a key is set");
            final List<KeyValue<String, String>> values = sync.mget("l-m1", "l-m3", "l-m2");
            assertEquals(List.of(KeyValue.just("l-m1", "1"), KeyValue.empty("l-m3"), KeyValue.just("l-m2", "2")),
                values);
            assertEquals(2L, sync.exists("l-m1", "l-m2", "l-m3"));
            assertEquals("1", sync.getdel("l-m1"));
            assertEquals(1L, sync.del("l-m2", "l-m1"));
        }
    }

    /** Over RESP3, as Lettuce connects: HGETALL answers a map, SMEMBERS and SINTER sets, HSCAN a cursor and pairs. */
    @Test
    void hashesAndSetsAnswerLettuceInResp3()
    {
        try (StatefulRedisConnection<String, String> connection = client.connect(uri(store.port(), PASSWORD)))
        {
            final RedisCommands<String, String> sync = connection.sync();
            assertEquals(2L, sync.hset("l-hash", Map.of("a", "1", "b", "2")));
            assertEquals("1", sync.hget("l-hash", "a"));
            assertEquals(12L, sync.hincrby("l-hash", "b", 10));
            assertEquals(Map.of("a", "1", "b", "12"), sync.hgetall("l-hash"));
            assertEquals(Set.of("a", "b"), new TreeSet<>(sync.hkeys("l-hash")));
            assertEquals(List.of(KeyValue.just("a", "1"), KeyValue.empty("z")), sync.hmget("l-hash", "a", "z"));
            assertEquals(Map.of("a", "1", "b", "12"), sync.hscan("l-hash").getMap());
            assertEquals(1L, sync.hdel("l-hash", "a", "z"));
            assertEquals(1L, sync.hlen("l-hash"));

            assertEquals(3L, sync.sadd("l-set", "x", "y", "z"));
            assertEquals(2L, sync.sadd("l-other", "y", "z"));
            assertEquals(Set.of("x", "y", "z"), sync.smembers("l-set"));
            assertEquals(Set.of("y", "z"), sync.sinter("l-set", "l-other"));
            assertTrue(sync.sismember("l-set", "x"));
            assertTrue(sync.smove("l-set", "l-other", "x"));
            assertEquals(Set.of("x", "y", "z"), sync.smembers("l-other"));
            assertEquals(List.of(false, true), sync.smismember("l-set", "x", "y"));
            assertEquals("set", sync.type("l-set"));
            assertTrue(assertThrows(RedisCommandExecutionException.class, () -> sync.get("l-set")).getMessage()
                .startsWith("WRONGTYPE"));
            assertEquals(2L, sync.del("l-set", "l-other"));
        }
    }

    @Test
    void asyncCommandsAndPipelinesWithAutoFlushOffAnswerInOrder()
    {
        try (StatefulRedisConnection<String, String> connection = client.connect(uri(store.port(), PASSWORD)))
        {
            final RedisAsyncCommands<String, String> async = connection.async();
            final RedisFuture<String> set = async.set("l-async", "a");
            final RedisFuture<String> get = async.get("l-async");
            assertTrue(LettuceFutures.awaitAll(TIMEOUT, set, get));
            assertEquals("a", get.toCompletableFuture().join());

            connection.setAutoFlushCommands(false);
            final List<RedisFuture<?>> futures = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                futures.add(async.set("l-pipelined-" + i, "v" + i));
                futures.add(async.incr("l-pipelined-counter"));
            }
            final List<RedisFuture<String>> gets = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                gets.add(async.get("l-pipelined-" + i));
            }
            futures.addAll(gets);
            connection.flushCommands();
            assertTrue(LettuceFutures.awaitAll(TIMEOUT, futures.toArray(new RedisFuture<?>[0])));
            for (int i = 0; i < 200; i++)
            {
                assertEquals("OK", futures.get(2 * i).toCompletableFuture().join());
                assertEquals(i + 1L, futures.get(2 * i + 1).toCompletableFuture().join(), "INCRs in order");
                assertEquals("v" + i, gets.get(i).toCompletableFuture().join());
            }
        }
    }

    @Test
    void clusterClientSpreadsKeysOverTwoComputeNodesAndEitherServesThem() throws Exception
    {
        try (TwoComputeNodes nodes = new TwoComputeNodes(dir, PASSWORD))
        {
            final ComputeNode first = nodes.first();
            final ComputeNode second = nodes.second();
            final RedisClusterClient clusterClient = RedisClusterClient.create(uri(first.port(), PASSWORD));
            try (StatefulRedisClusterConnection<String, String> connection = clusterClient.connect())
            {
                final Map<Integer, Integer> slotsByPort = new HashMap<>();
                for (final RedisClusterNode node : connection.getPartitions())
                {
                    slotsByPort.put(node.getUri().getPort(), node.getSlots().size());
                }
                assertEquals(Map.of(first.port(), 8_192, second.port(), 8_192), slotsByPort,
                    "both nodes found from one, each with half the slots");

                final RedisAdvancedClusterCommands<String, String> sync = connection.sync();
                final Map<String, String> written = new LinkedHashMap<>();
                final Set<Integer> ports = new TreeSet<>();
                for (int i = 0; i < 100; i++)
                {
                    final String key = "lettuce-cluster-" + i;
                    assertEquals("OK", sync.set(key, "v" + i));
                    written.put(key, "v" + i);
                    ports.add(nodes.portOfSlot(SlotHash.getSlot(key)));
                }
                assertEquals(Set.of(first.port(), second.port()), ports, "keys of both halves");
                assertEquals("OK", sync.mset(Map.of("{user7}.name", "ann", "{user7}.mail", "a@x")));
                for (final Map.Entry<String, String> entry : written.entrySet())
                {
                    assertEquals(entry.getValue(), sync.get(entry.getKey()));
                }
                final List<KeyValue<String, String>> values = sync.mget(written.keySet().toArray(new String[0]));
                assertEquals(written.size(), values.size(), "a cross-slot MGET split by slot and joined");
                for (final KeyValue<String, String> value : values)
                {
                    assertEquals(written.get(value.getKey()), value.getValue());
                }
                assertEquals(1L, connection.async().incr("lettuce-cluster-counter").get());

                for (final int port : new int[]{first.port(), second.port()})
                {
                    try (RawResp resp = new RawResp(port))
                    {
                        assertEquals("+OK", resp.call("AUTH", PASSWORD));
                        for (final Map.Entry<String, String> entry : written.entrySet())
                        {
                            assertEquals("$" + entry.getValue(), resp.call("GET", entry.getKey()),
                                "a key written through the cluster client is read through either node");
                        }
                        assertEquals("$ann", resp.call("GET", "{user7}.name"));
                    }
                }
            }
            finally
            {
                clusterClient.shutdown();
            }
        }
    }

    private static RedisURI uri(final int port, final String password)
    {
        final RedisURI.Builder builder = RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(TIMEOUT);
        return (password == null ? builder : builder.withPassword(password.toCharArray())).build();
    }

    /** The messages of an exception and its causes: Lettuce wraps the server's error. */
    private static String causes(final Throwable thrown)
    {
        final StringBuilder messages = new StringBuilder();
        for (Throwable cause = thrown; cause != null; cause = cause.getCause())
        {
            messages.append(cause.getMessage()).append(" <- ");
        }
        return messages.toString();
    }
}
