package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keyspace commands answer as redis-server 7.0 does: SCAN (whole scans, whatever the COUNT, compared as sets of
 * keys: cursors and order differ), KEYS with redis's glob patterns (its classes, ranges, escapes and unclosed
 * brackets), DBSIZE, TYPE, RANDOMKEY, FLUSHALL, FLUSHDB, multi-key DEL, UNLINK, EXISTS and TOUCH, and their errors.
 */
class RespKeyspaceDifferentialTest
{
    private static final String[] KEYS = {"user:1", "user:2", "user:10", "user:11", "order:1", "order:22", "a*b",
        "a?c", "[x]", "h-", "h\\llo", "hallo", "hello", "hillo", "hbllo", "Hello", "x-y", "ab", "b", "é", "k]"};
    private static final String[] PATTERNS = {"*", "**", "user:*", "*:1?", "*:?", "h?llo", "h*llo", "h[ae]llo",
        "h[^e]llo", "h[a-b]llo", "h[b-a]llo", "a\\*b", "a*", "[[]x]", "\\[x\\]", "H*", "[", "[a", "*[", "h[a-",
        "?", "??", "user:[0-9]", "*o", "nomatch*", "", "h[\\]]llo", "k[]]", "k\\]", "*\\", "[^a-z]*", "?:*1",
        "user:1*", "*1*0*", "é", "?\u00a9"};
    private static final Pattern SCAN_REPLY = Pattern.compile("\\*2\\[\\$(\\d+), \\*(\\d+)\\[(.*)]]");

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @Test
    void scansAndPatternsFindTheKeysRedisFinds() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            for (final String key : KEYS)
            {
                both(redis, dkv, "SET", key, "v:" + key);
            }
            both(redis, dkv, "DBSIZE");
            for (final String pattern : PATTERNS)
            {
                assertEquals(sorted(redis.call("KEYS", pattern)), sorted(dkv.call("KEYS", pattern)), "KEYS " + pattern);
                for (final String count : List.of("1", "3", "1000"))
                {
                    assertEquals(scanAll(redis, "MATCH", pattern, "COUNT", count),
                        scanAll(dkv, "MATCH", pattern, "COUNT", count), "SCAN MATCH " + pattern + " COUNT " + count);
                }
            }
            assertEquals(scanAll(redis, "TYPE", "string"), scanAll(dkv, "TYPE", "STRING"));
            assertEquals(Set.of(), scanAll(dkv, "TYPE", "hash"));
            assertEquals(scanAll(redis, "TYPE", "hash"), scanAll(dkv, "TYPE", "hash"));
            assertEquals(new TreeSet<>(Arrays.asList(KEYS)), scanAll(dkv));
            final String random = dkv.call("RANDOMKEY");
            assertTrue(Arrays.asList(KEYS).contains(random.substring(1)), random);
        }
    }

    @Test
    void keyCommandsOfSeveralKeysAndFlushesAnswerAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHDB");
            for (final String key : List.of("a", "b", "c", "d", "e"))
            {
                both(redis, dkv, "SET", key, key);
            }
            both(redis, dkv, "TYPE", "a");
            both(redis, dkv, "TYPE", "nope");
            both(redis, dkv, "EXISTS", "a", "a", "nope", "b");
            both(redis, dkv, "TOUCH", "a", "a", "nope", "b");
            both(redis, dkv, "DEL", "a", "a", "nope", "b");
            both(redis, dkv, "UNLINK", "c", "nope");
            both(redis, dkv, "UNLINK", "d", "e", "d");
            both(redis, dkv, "DBSIZE");
            both(redis, dkv, "RANDOMKEY");
            both(redis, dkv, "SET", "f", "f");
            both(redis, dkv, "FLUSHALL", "ASYNC");
            both(redis, dkv, "DBSIZE");
            both(redis, dkv, "SET", "g", "g");
            both(redis, dkv, "FLUSHALL", "sync");
            both(redis, dkv, "KEYS", "*");
            both(redis, dkv, "SCAN", "0");
            both(redis, dkv, "RANDOMKEY");
        }
    }

    @Test
    void renamesAndCopiesAnswerAsRedisAndKeepTheExpiryAsRedisDoes() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            for (final String[] command : List.of(
                new String[]{"RENAME", "nope", "x"}, new String[]{"RENAMENX", "nope", "x"},
                new String[]{"RENAME", "nope", "nope"}, new String[]{"SET", "a", "1", "EX", "1000"},
                new String[]{"SET", "b", "2"}, new String[]{"RENAME", "a", "a"}, new String[]{"RENAMENX", "a", "a"},
                new String[]{"RENAMENX", "a", "b"}, new String[]{"RENAME", "a", "c"}, new String[]{"TTL", "c"},
                new String[]{"EXISTS", "a"}, new String[]{"SET", "d", "4", "EX", "500"},
                new String[]{"RENAME", "b", "d"}, new String[]{"TTL", "d"}, new String[]{"GET", "d"},
                new String[]{"RENAMENX", "d", "e"}, new String[]{"GET", "e"}, new String[]{"COPY", "c", "c"},
                new String[]{"COPY", "nope", "f"}, new String[]{"COPY", "c", "f"}, new String[]{"TTL", "f"},
                new String[]{"COPY", "e", "f"}, new String[]{"COPY", "e", "f", "REPLACE"}, new String[]{"GET", "f"},
                new String[]{"TTL", "f"}, new String[]{"COPY", "e", "g", "DB", "0"},
                new String[]{"COPY", "e", "g", "DB", "1"}, new String[]{"COPY", "e", "g", "DB", "x"},
                new String[]{"COPY", "e", "g", "DB"}, new String[]{"COPY", "e", "g", "BOGUS"},
                new String[]{"COPY", "e", "h", "replace", "db", "0"}, new String[]{"GET", "h"},
                new String[]{"RENAME", "x"}, new String[]{"COPY", "x"}, new String[]{"KEYS", "*"}))
            {
                final String theirs = redis.call(command);
                final String ours = dkv.call(command);
                final String name = command[0];
                assertTrue(name.equals("KEYS") ? sorted(theirs).equals(sorted(ours)) :
                    RespDifferentialTest.sameReply(name, theirs, ours), () -> String.join(" ", command) +
                    ": redis answered " + theirs + ", dkv " + ours);
            }
        }
    }

    @Test
    void objectAnswersAsRedisForValuesSetWhole() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String value : List.of("0", "9999", "10000", "-1", "123456789012345678", "12345678901234567890",
                "007", "1.5", "", "short", "x".repeat(44), "x".repeat(45), " 1", "-9223372036854775808"))
            {
                both(redis, dkv, "SET", "o", value);
                both(redis, dkv, "OBJECT", "ENCODING", "o");
                both(redis, dkv, "OBJECT", "REFCOUNT", "o");
                both(redis, dkv, "OBJECT", "FREQ", "o");
            }
            for (final String[] command : List.of(new String[]{"OBJECT", "ENCODING", "nope"},
                new String[]{"OBJECT", "REFCOUNT", "nope"}, new String[]{"OBJECT", "IDLETIME", "nope"},
                new String[]{"OBJECT", "FREQ", "nope"}, new String[]{"OBJECT", "HELP"},
                new String[]{"OBJECT", "help"}, new String[]{"OBJECT", "BOGUS", "o"},
                new String[]{"OBJECT", "ENCODING"}, new String[]{"OBJECT", "ENCODING", "o", "x"},
                new String[]{"OBJECT"}, new String[]{"OBJECT", "HELP", "x"}))
            {
                both(redis, dkv, command);
            }
            assertTrue(dkv.call("OBJECT", "IDLETIME", "o").startsWith("-ERR OBJECT IDLETIME is not supported"));
        }
    }

    @Test
    void refusesWhatRedisRefuses() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String[] command : List.of(
                new String[]{"SCAN", "abc"}, new String[]{"SCAN", " 0"}, new String[]{"SCAN", "0", "COUNT", "0"},
                new String[]{"SCAN", "0", "COUNT", "-1"}, new String[]{"SCAN", "0", "COUNT", "abc"},
                new String[]{"SCAN", "0", "MATCH"}, new String[]{"SCAN", "0", "BOGUS", "1"},
                new String[]{"SCAN", "0", "COUNT", "5", "MATCH"}, new String[]{"SCAN"}, new String[]{"KEYS"},
                new String[]{"KEYS", "a", "b"}, new String[]{"DBSIZE", "x"}, new String[]{"RANDOMKEY", "x"},
                new String[]{"FLUSHALL", "BOGUS"}, new String[]{"FLUSHALL", "SYNC", "ASYNC"},
                new String[]{"FLUSHDB", "async", "x"}, new String[]{"TYPE"}, new String[]{"TYPE", "a", "b"},
                new String[]{"UNLINK"}, new String[]{"TOUCH"}))
            {
                SameReplies.assertSameReply(redis, dkv, command);
            }
        }
    }

    @Test
    void refusesACursorNoScanMade() throws Exception
    {
        try (RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            assertEquals("-ERR invalid cursor", dkv.call("SCAN", "12345"));
            assertEquals("-ERR invalid cursor", dkv.call("SCAN", "-1"));
        }
    }

    @Test
    void timeIsTheClockThatJudgesExpiry() throws Exception
    {
        try (RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            final long before = SERVERS.store().client().epochClock().time();
            final Matcher time = Pattern.compile("\\*2\\[\\$(\\d+), \\$(\\d+)]").matcher(dkv.call("TIME"));
            final long after = SERVERS.store().client().epochClock().time();

            assertTrue(time.matches());
            final long micros = Long.parseLong(time.group(1)) * 1_000_000L + Long.parseLong(time.group(2));
            assertTrue(micros >= before * 1000 && micros <= after * 1000, before + " <= " + micros + " us <= " + after);
            assertTrue(Long.parseLong(time.group(2)) < 1_000_000L);
            assertEquals("-ERR wrong number of arguments for 'time' command", dkv.call("TIME", "x"));
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        SameReplies.assertSameReply(redis, dkv, command);
    }

    /** @return the keys of a whole SCAN with these options. */
    private static Set<String> scanAll(final RawResp server, final String... options) throws IOException
    {
        final Set<String> keys = new TreeSet<>();
        String cursor = "0";
        do
        {
            final String[] command = new String[2 + options.length];
            command[0] = "SCAN";
            command[1] = cursor;
            System.arraycopy(options, 0, command, 2, options.length);
            final String reply = server.call(command);
            final Matcher matcher = SCAN_REPLY.matcher(reply);
            assertTrue(matcher.matches(), reply);
            cursor = matcher.group(1);
            keys.addAll(elements(matcher.group(3)));
        }
        while (!cursor.equals("0"));
        return keys;
    }

    /** @return a KEYS reply's keys, sorted: the servers list them in orders of their own. */
    private static Set<String> sorted(final String reply)
    {
        assertTrue(reply.startsWith("*"), reply);
        return new TreeSet<>(elements(reply.substring(reply.indexOf('[') + 1, reply.length() - 1)));
    }

    private static List<String> elements(final String list)
    {
        if (list.isEmpty())
        {
            return List.of();
        }
        return Arrays.stream(list.split(", ")).map(element ->
        {
            assertTrue(element.startsWith("$"), element);
            return element.substring(1);
        }).toList();
    }
}
