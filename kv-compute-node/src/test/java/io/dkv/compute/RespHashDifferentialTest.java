package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hashes answer as redis-server 7.0's do: every hash command with its errors, WRONGTYPE both ways, and the keyspace
 * commands over hashes (TYPE, EXISTS, DEL, RENAME, COPY, EXPIRE, PERSIST, SCAN TYPE, SET over a hash). Replies whose
 * order redis does not fix (HKEYS, HVALS, HGETALL, HSCAN) are compared as sets of elements or of field-value pairs; a
 * hash of 3,000 fields spans many segments.
 */
class RespHashDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @Test
    void hashCommandsAnswerAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            for (final String[] command : List.of(
                new String[]{"HSET", "h", "a", "1", "b", "2", "c", "3"}, new String[]{"HSET", "h", "a", "10", "d", "4"},
                new String[]{"HMSET", "h", "e", "5"}, new String[]{"HGET", "h", "a"}, new String[]{"HGET", "h", "zz"},
                new String[]{"HGET", "nope", "a"}, new String[]{"HMGET", "h", "a", "zz", "b"},
                new String[]{"HMGET", "nope", "a", "b"}, new String[]{"HLEN", "h"}, new String[]{"HLEN", "nope"},
                new String[]{"HEXISTS", "h", "a"}, new String[]{"HEXISTS", "h", "zz"},
                new String[]{"HEXISTS", "nope", "a"}, new String[]{"HSTRLEN", "h", "a"},
                new String[]{"HSTRLEN", "h", "zz"}, new String[]{"HSETNX", "h", "a", "x"},
                new String[]{"HSETNX", "h", "f", "6"}, new String[]{"HGET", "h", "f"},
                new String[]{"HDEL", "h", "a", "zz", "a"}, new String[]{"HDEL", "nope", "a"}, new String[]{"HLEN", "h"},
                new String[]{"HINCRBY", "h", "b", "5"}, new String[]{"HINCRBY", "h", "new", "-7"},
                new String[]{"HINCRBY", "h", "b", "x"}, new String[]{"HSET", "h", "s", "abc"},
                new String[]{"HINCRBY", "h", "s", "1"}, new String[]{"HSET", "h", "big", "9223372036854775807"},
                new String[]{"HINCRBY", "h", "big", "1"}, new String[]{"HINCRBY", "h", "b", "-9223372036854775808"},
                new String[]{"HINCRBYFLOAT", "h", "b", "1.5"}, new String[]{"HINCRBYFLOAT", "h", "fl", "3.0e3"},
                new String[]{"HINCRBYFLOAT", "h", "fl", "0.1"}, new String[]{"HINCRBYFLOAT", "h", "s", "1"},
                new String[]{"HINCRBYFLOAT", "h", "fl", "x"}, new String[]{"HINCRBYFLOAT", "h", "fl", "inf"},
                new String[]{"HINCRBYFLOAT", "h", "fl", "1e4932"}, new String[]{"HGET", "h", "fl"},
                new String[]{"HSET", "h"}, new String[]{"HSET", "h", "a"}, new String[]{"HSET", "h", "a", "1", "b"},
                new String[]{"HMSET", "h", "a"}, new String[]{"HGET", "h"}, new String[]{"HSETNX", "h", "a"},
                new String[]{"HDEL", "h"}, new String[]{"HRANDFIELD", "nope"}, new String[]{"HRANDFIELD", "nope", "3"},
                new String[]{"HRANDFIELD", "h", "0"}, new String[]{"HRANDFIELD", "h", "x"},
                new String[]{"HRANDFIELD", "h", "1", "bogus"}, new String[]{"HRANDFIELD", "h", "1", "withvalues", "x"},
                new String[]{"HRANDFIELD", "h", "-9223372036854775808"},
                new String[]{"HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES"},
                new String[]{"HSCAN", "h", "x"}, new String[]{"HSCAN", "h", "0", "COUNT", "0"},
                new String[]{"HSCAN", "h", "0", "COUNT"}, new String[]{"HSCAN", "h", "0", "BOGUS", "1"},
                new String[]{"HSCAN", "nope", "0"}, new String[]{"HDEL", "h", "b", "c", "d", "e", "f", "new", "s"},
                new String[]{"HDEL", "h", "big", "fl"}, new String[]{"EXISTS", "h"}, new String[]{"HLEN", "h"},
                new String[]{"HKEYS", "h"}, new String[]{"HGETALL", "h"}))
            {
                both(redis, dkv, command);
            }
        }
    }

    @Test
    void resp3AnswersMapsAndPairs() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            redis.call("HELLO", "3");
            dkv.call("HELLO", "3");
            both(redis, dkv, "DEL", "one");
            for (final String[] command : List.of(new String[]{"HGETALL", "one"}, new String[]{"HSET", "one", "f", "v"},
                new String[]{"HGETALL", "one"}, new String[]{"HRANDFIELD", "one", "1", "WITHVALUES"},
                new String[]{"HRANDFIELD", "one", "-3", "WITHVALUES"}, new String[]{"HRANDFIELD", "one", "2"},
                new String[]{"HRANDFIELD", "one"}, new String[]{"HGET", "one", "nope"},
                new String[]{"HMGET", "one", "f", "nope"}, new String[]{"HSCAN", "one", "0"},
                new String[]{"HRANDFIELD", "nope"}, new String[]{"HINCRBYFLOAT", "one", "n", "1.5"}))
            {
                both(redis, dkv, command);
            }
        }
    }

    @Test
    void hashesInsideMultiAnswerAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "DEL", "m", "ms");
            for (final String[] command : List.of(new String[]{"MULTI"}, new String[]{"HSET", "m", "a", "1"},
                new String[]{"HINCRBY", "m", "a", "5"}, new String[]{"HGET", "m", "a"}, new String[]{"SADD", "m", "x"},
                new String[]{"SET", "ms", "v"}, new String[]{"HSET", "ms", "f", "v"}, new String[]{"DEL", "ms"},
                new String[]{"HSET", "ms", "f", "v"}, new String[]{"HLEN", "ms"}, new String[]{"EXEC"},
                new String[]{"HGETALL", "m"}, new String[]{"TYPE", "ms"}, new String[]{"MULTI"},
                new String[]{"HDEL", "m", "a"}, new String[]{"EXISTS", "m"}, new String[]{"HSET", "m", "b", "2"},
                new String[]{"RENAME", "m", "m2"}, new String[]{"HGET", "m2", "b"}, new String[]{"EXEC"}))
            {
                both(redis, dkv, command);
            }
        }
    }

    @Test
    void wrongTypeBothWaysAndTheKeyspaceOverHashes() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            for (final String[] command : List.of(
                new String[]{"SET", "s", "v"}, new String[]{"HSET", "h", "f", "v", "g", "w"},
                new String[]{"HSET", "s", "f", "v"}, new String[]{"HGET", "s", "f"}, new String[]{"HLEN", "s"},
                new String[]{"HGETALL", "s"}, new String[]{"HINCRBY", "s", "f", "1"},
                new String[]{"HINCRBY", "s", "f", "x"}, new String[]{"HSCAN", "s", "0"},
                new String[]{"HRANDFIELD", "s"}, new String[]{"GET", "h"}, new String[]{"APPEND", "h", "x"},
                new String[]{"INCR", "h"}, new String[]{"STRLEN", "h"}, new String[]{"GETRANGE", "h", "0", "1"},
                new String[]{"SETRANGE", "h", "0", "x"}, new String[]{"GETDEL", "h"}, new String[]{"GETEX", "h"},
                new String[]{"MGET", "s", "h", "nope"}, new String[]{"TYPE", "h"}, new String[]{"TYPE", "s"},
                new String[]{"EXISTS", "h", "s", "nope", "h"}, new String[]{"TOUCH", "h"},
                new String[]{"SETNX", "h", "x"}, new String[]{"SET", "h", "x", "NX"},
                new String[]{"SET", "h", "x", "GET"},
                new String[]{"TTL", "h"}, new String[]{"EXPIRE", "h", "100"}, new String[]{"TTL", "h"},
                new String[]{"EXPIRE", "h", "200", "NX"}, new String[]{"EXPIRE", "h", "50", "GT"},
                new String[]{"EXPIRETIME", "nope"}, new String[]{"PERSIST", "h"}, new String[]{"TTL", "h"},
                new String[]{"PERSIST", "h"}, new String[]{"RENAME", "h", "h2"}, new String[]{"HGET", "h2", "f"},
                new String[]{"EXISTS", "h"}, new String[]{"RENAME", "s", "h2"}, new String[]{"TYPE", "h2"},
                new String[]{"HSET", "h3", "a", "1"}, new String[]{"COPY", "h3", "h4"},
                new String[]{"HSET", "h3", "a", "changed"}, new String[]{"HGET", "h4", "a"},
                new String[]{"COPY", "h3", "h4"}, new String[]{"COPY", "h3", "h4", "REPLACE"},
                new String[]{"HGET", "h4", "a"}, new String[]{"RENAMENX", "h3", "h4"},
                new String[]{"SET", "h4", "x", "XX"}, new String[]{"TYPE", "h4"}, new String[]{"HSET", "h5", "a", "1"},
                new String[]{"SET", "h5", "y"}, new String[]{"GET", "h5"}, new String[]{"HSET", "h6", "a", "1"},
                new String[]{"MSET", "h6", "z", "o", "p"}, new String[]{"GET", "h6"},
                new String[]{"HSET", "h7", "a", "1"},
                new String[]{"DEL", "h7", "h3"}, new String[]{"EXISTS", "h7", "h3"},
                new String[]{"HSET", "h8", "a", "1"},
                new String[]{"EXPIRE", "h8", "-1"}, new String[]{"EXISTS", "h8"}, new String[]{"HSET", "h9", "a", "1"},
                new String[]{"SET", "h9", "v", "KEEPTTL"}, new String[]{"TYPE", "h9"}))
            {
                final String theirs = redis.call(command);
                final String ours = dkv.call(command);
                assertTrue(RespDifferentialTest.sameReply(command[0], theirs, ours), () -> String.join(" ", command) +
                    ": redis answered " + theirs + ", dkv " + ours);
            }
            both(redis, dkv, "HSET", "t", "f", "v");
            assertEquals(scanKeys(redis, "TYPE", "hash"), scanKeys(dkv, "TYPE", "hash"));
            assertEquals(scanKeys(redis, "TYPE", "string"), scanKeys(dkv, "TYPE", "string"));
            assertEquals(scanKeys(redis), scanKeys(dkv), "a hash's segments are not keys");
            both(redis, dkv, "DBSIZE");
            both(redis, dkv, "FLUSHALL");
            both(redis, dkv, "DBSIZE");
        }
    }

    @Test
    void aHashOfManySegmentsAnswersAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "DEL", "big");
            final List<String> command = new ArrayList<>(List.of("HSET", "big"));
            for (int i = 0; i < 1_500; i++)
            {
                command.add("field:" + i);
                command.add("value " + i);
            }
            both(redis, dkv, command.toArray(new String[0]));
            for (int i = 1_500; i < 3_000; i += 7)
            {
                both(redis, dkv, "HSET", "big", "field:" + i, "v" + i);
            }
            for (int i = 0; i < 3_000; i += 11)
            {
                both(redis, dkv, "HDEL", "big", "field:" + i);
                both(redis, dkv, "HGET", "big", "field:" + (i + 1));
            }
            both(redis, dkv, "HLEN", "big");
            assertEquals(pairs(redis.call("HGETALL", "big")), pairs(dkv.call("HGETALL", "big")));
            assertEquals(new TreeSet<>(elements(redis.call("HKEYS", "big"))),
                new TreeSet<>(elements(dkv.call("HKEYS", "big"))));
            assertEquals(new TreeSet<>(elements(redis.call("HVALS", "big"))),
                new TreeSet<>(elements(dkv.call("HVALS", "big"))));
            for (final String count : List.of("1", "10", "1000"))
            {
                assertEquals(hscan(redis, "big", "COUNT", count), hscan(dkv, "big", "COUNT", count));
                assertEquals(hscan(redis, "big", "MATCH", "field:1*", "COUNT", count),
                    hscan(dkv, "big", "MATCH", "field:1*", "COUNT", count));
            }
            final List<String> five = elements(dkv.call("HRANDFIELD", "big", "5"));
            assertEquals(5, new TreeSet<>(five).size(), five.toString());
            assertEquals(40, elements(dkv.call("HRANDFIELD", "big", "-20", "WITHVALUES")).size());
            final Map<String, String> all = pairs(dkv.call("HGETALL", "big"));
            assertEquals(all.size(), new TreeSet<>(elements(dkv.call("HRANDFIELD", "big", "100000"))).size());
            for (final String field : five)
            {
                assertTrue(all.containsKey(field), field);
            }
            both(redis, dkv, "DEL", "big");
            assertEquals(scanKeys(redis), scanKeys(dkv));
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        SameReplies.assertSameReply(redis, dkv, command);
    }

    /** @return the field-value pairs of an HGETALL reply (or an HSCAN's elements). */
    private static Map<String, String> pairs(final String reply)
    {
        final List<String> elements = elements(reply);
        final Map<String, String> pairs = new TreeMap<>();
        for (int i = 0; i < elements.size(); i += 2)
        {
            pairs.put(elements.get(i), elements.get(i + 1));
        }
        return pairs;
    }

    private static List<String> elements(final String reply)
    {
        return ScanReplies.elements(reply);
    }

    /** @return the field-value pairs of a whole HSCAN with these options. */
    private static Map<String, String> hscan(final RawResp server, final String key, final String... options)
        throws IOException
    {
        final List<String> elements = ScanReplies.scanAll(server, List.of("HSCAN", key), options);
        final Map<String, String> found = new TreeMap<>();
        for (int i = 0; i < elements.size(); i += 2)
        {
            found.put(elements.get(i), elements.get(i + 1));
        }
        return found;
    }

    private static TreeSet<String> scanKeys(final RawResp server, final String... options) throws IOException
    {
        return new TreeSet<>(ScanReplies.scanAll(server, List.of("SCAN"), options));
    }
}
