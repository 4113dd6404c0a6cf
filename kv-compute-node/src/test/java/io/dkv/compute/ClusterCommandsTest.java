package io.dkv.compute;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node with no RaaS handle to find others by answers CLUSTER as a one-node redis 7 cluster holding every
 * slot does: the replies of redis-server started with {@code --cluster-enabled yes} and given slots 0-16383, the same
 * shapes (types, lengths, field names, slot ranges) in RESP2 and RESP3, where only the node's host, port and id differ.
 * KEYSLOT is redis's own number for any key, hash tags and binary bytes included; COUNTKEYSINSLOT and GETKEYSINSLOT,
 * which would need an index of keys by slot that dkv has not, check their arguments as redis does and are then refused
 * by name.
 */
class ClusterCommandsTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS =
        new StoreBesideRedis("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");

    @BeforeAll
    static void giveRedisEverySlot() throws Exception
    {
        if (!SERVERS.redisInstalled())
        {
            return;
        }
        try (RawResp admin = new RawResp(SERVERS.redis().port()))
        {
            assertEquals("+OK", admin.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            final long deadline = System.nanoTime() + 30_000_000_000L;
            // redis's cluster cron marks the state ok a moment after the slots are added
            while (!admin.call("CLUSTER", "INFO").contains("cluster_state:ok") && System.nanoTime() < deadline)
            {
                Thread.sleep(20);
            }
        }
    }

    @Test
    void clusterSlotsShardsNodesAndInfoHaveTheShapesOfAOneNodeRedisCluster() throws Exception
    {
        final RedisServer redis = SERVERS.redis();
        for (final String protocol : new String[]{"2", "3"})
        {
            for (final String sub : new String[]{"SLOTS", "SHARDS", "NODES", "INFO", "MYID"})
            {
                final String theirs = normalized(redis.port(), "", protocol, sub);
                final String ours = normalized(SERVERS.store().port(), "127.0.0.1", protocol, sub);
                assertEquals(theirs, ours, () -> "CLUSTER " + sub + " in RESP" + protocol);
            }
        }
    }

    @Test
    void clusterMisusesGetRedisErrors() throws Exception
    {
        try (RawResp ours = new RawResp(SERVERS.store().port()))
        {
            assertEquals("-ERR wrong number of arguments for 'cluster' command", ours.call("CLUSTER"));
            assertEquals("-ERR wrong number of arguments for 'cluster|slots' command", ours.call("CLUSTER", "SLOTS",
                "x"));
            assertEquals("-ERR unknown subcommand 'foo'. Try CLUSTER HELP.", ours.call("cluster", "foo"));
            assertEquals("+OK", ours.call("READONLY"));
            assertEquals("+OK", ours.call("READWRITE"));
            final String myId = ours.call("CLUSTER", "MYID");
            assertTrue(myId.matches("\\$[0-9a-f]{40}"), () -> "a node id is 40 hex digits: " + myId);
        }
    }

    @Test
    void keySlotIsRedissCrc16OfTheKeyOrItsHashTag() throws Exception
    {
        // CRC-16/XMODEM's check value, the examples of redis's documentation of CLUSTER KEYSLOT, and redis 7.0.15's
        // answers for tags that are not tags
        try (RawResp ours = new RawResp(SERVERS.store().port()))
        {
            assertEquals(":" + 0x31C3, ours.call("CLUSTER", "KEYSLOT", "123456789"), "CRC16's check value");
            assertEquals(":11058", ours.call("CLUSTER", "KEYSLOT", "somekey"));
            assertEquals(":2515", ours.call("CLUSTER", "KEYSLOT", "foo{hash_tag}"));
            assertEquals(ours.call("CLUSTER", "KEYSLOT", "user1000"), ours.call("cluster", "keyslot",
                "{user1000}.following"), "keys with the same hash tag share a slot");
            assertEquals(":15495", ours.call("CLUSTER", "KEYSLOT", "{a}b"), "the tag's slot: that of a");
            assertEquals(":10595", ours.call("CLUSTER", "KEYSLOT", "{}x"), "an empty tag: the whole key hashed");
            assertEquals(":15257", ours.call("CLUSTER", "KEYSLOT", "{}"));
            assertEquals(":0", ours.call("CLUSTER", "KEYSLOT", ""), "the empty key is slot 0, as in redis");
        }
    }

    @Test
    void keySlotEqualsRedisServersForRandomKeysTagsAndBinaryBytes() throws Exception
    {
        final RedisServer redis = SERVERS.redis();
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        try (RawResp theirs = new RawResp(redis.port()); RawResp ours = new RawResp(SERVERS.store().port()))
        {
            for (int i = 0; i < 500; i++)
            {
                final byte[] key = randomKey(random, i);
                final byte[][] request = {bytes("CLUSTER"), bytes("KEYSLOT"), key};
                final String expected = theirs.call(request);
                assertTrue(expected.startsWith(":"), () -> "redis answers a slot: " + expected);
                assertEquals(expected, ours.call(request), () -> "KEYSLOT of " + Arrays.toString(key) + " (seed " +
                    seed + ")");
            }
        }
    }

    @Test
    void keySlotAndSlotCountingMisusesGetRedissErrorsByteForByte() throws Exception
    {
        final RedisServer redis = SERVERS.redis();
        final String[][] misuses = {
            {"CLUSTER", "KEYSLOT"}, {"CLUSTER", "KEYSLOT", "a", "b"}, {"cluster", "keyslot"},
            {"CLUSTER", "COUNTKEYSINSLOT"}, {"CLUSTER", "COUNTKEYSINSLOT", "1", "2"},
            {"CLUSTER", "COUNTKEYSINSLOT", "x"}, {"CLUSTER", "COUNTKEYSINSLOT", "-1"},
            {"CLUSTER", "COUNTKEYSINSLOT", "16384"}, {"CLUSTER", "COUNTKEYSINSLOT", "1.5"},
            {"CLUSTER", "GETKEYSINSLOT", "1"}, {"CLUSTER", "GETKEYSINSLOT", "1", "2", "3"},
            {"CLUSTER", "GETKEYSINSLOT", "x", "1"}, {"CLUSTER", "GETKEYSINSLOT", "1", "x"},
            {"CLUSTER", "GETKEYSINSLOT", "16384", "1"}, {"CLUSTER", "GETKEYSINSLOT", "1", "-1"},
            {"CLUSTER", "GETKEYSINSLOT", "-1", "-1"}};
        try (RawResp theirs = new RawResp(redis.port()); RawResp ours = new RawResp(SERVERS.store().port()))
        {
            for (final String[] misuse : misuses)
            {
                final String expected = theirs.call(misuse);
                assertTrue(expected.startsWith("-ERR"), () -> String.join(" ", misuse) + " is a misuse in redis");
                assertEquals(expected, ours.call(misuse), () -> String.join(" ", misuse));
            }
        }
    }

    @Test
    void countAndGetKeysInSlotAreRefusedByNameAsDkvKeepsNoIndexOfKeysBySlot() throws Exception
    {
        try (RawResp ours = new RawResp(SERVERS.store().port()))
        {
            assertEquals("-ERR command 'CLUSTER COUNTKEYSINSLOT' is not supported by this dkv compute node: it " +
                "keeps no index of keys by slot", ours.call("CLUSTER", "COUNTKEYSINSLOT", "0"));
            assertEquals("-ERR command 'CLUSTER GETKEYSINSLOT' is not supported by this dkv compute node: it " +
                "keeps no index of keys by slot", ours.call("cluster", "getkeysinslot", "16383", "10"));
            assertEquals("+PONG", ours.call("PING"), "the connection goes on");
        }
    }

    /**
     * Plain text, hash tags well formed and not ({@code {}}, an open brace alone, tags empty, nested, several, a
     * close before the open), and binary bytes, CR, LF and NUL among them.
     */
    private static byte[] randomKey(final Random random, final int i)
    {
        final String alphabet = "ab{}{}{}xyz0123 ";
        return switch (i % 5)
        {
            case 0 -> bytes(Long.toString(random.nextLong(), 36));
            case 1 ->
            {
                final String tag = Long.toString(random.nextLong() & 0xFFFF, 16);
                yield bytes(List.of("{" + tag + "}x", "x{" + tag + "}", "{}" + tag, "{" + tag, tag + "}{" + tag,
                    "{{" + tag + "}}", "{}", "{", "}", "{" + tag + "}{z}", "a{}{" + tag + "}", "}" + tag + "{")
                    .get(random.nextInt(12)));
            }
            case 2 ->
            {
                final char[] chars = new char[1 + random.nextInt(12)];
                for (int c = 0; c < chars.length; c++)
                {
                    chars[c] = alphabet.charAt(random.nextInt(alphabet.length()));
                }
                yield bytes(new String(chars));
            }
            default ->
            {
                final byte[] key = new byte[1 + random.nextInt(40)];
                random.nextBytes(key);
                if (i % 5 == 4 && key.length > 3)
                {
                    key[random.nextInt(key.length)] = '{';
                    key[random.nextInt(key.length)] = '}';
                }
                yield key;
            }
        };
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The reply with the node's own host, port (and bus port) and id made placeholders. */
    private static String normalized(final int port, final String host, final String protocol, final String sub)
        throws Exception
    {
        try (RawResp connection = new RawResp(port))
        {
            connection.call("HELLO", protocol);
            final String id = connection.call("CLUSTER", "MYID").substring(1);
            final String reply = connection.call("CLUSTER", sub);
            return reply.replace(id, "ID")
                .replaceAll(host.isEmpty() ? "\\$(?=[,\\]])" : "\\$" + host.replace(".", "\\."), "\\$HOST")
                .replace(" " + host + ":" + port + "@", " HOST:PORT@")
                .replaceAll("@[0-9]+ ", "@BUS ")
                .replace(":" + port + ",", ":PORT,");
        }
    }
}
