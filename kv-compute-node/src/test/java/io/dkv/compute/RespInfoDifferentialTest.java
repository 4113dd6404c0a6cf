package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO as redis-server 7.0 gives it, where clients and Redis's own tests read it: the sections each form of the
 * command chooses, the CPU figures, and commandstats and errorstats counting the same calls, refusals, failures and
 * error prefixes as redis for the same requests.
 */
class RespInfoDifferentialTest
{
    private static final Pattern CMDSTAT =
        Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+),usec=\\d+,usec_per_call=[\\d.]+,rejected_calls=(\\d+)," +
            "failed_calls=(\\d+)");

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @Test
    void commandAndErrorStatsCountAsRedisCounts() throws Exception
    {
        final List<String[]> requests = List.of(new String[]{"SET", "n", "abc"}, new String[]{"GET", "n"},
            new String[]{"GET"}, new String[]{"INCR", "n"}, new String[]{"INCR", "m"}, new String[]{"NOSUCH", "x"},
            new String[]{"CONFIG", "BOGUS"}, new String[]{"CONFIG", "GET", "maxclients"}, new String[]{"MULTI"},
            new String[]{"INCR", "n"}, new String[]{"GET", "a", "b"}, new String[]{"EXEC"},
            new String[]{"MULTI"}, new String[]{"INCR", "n"}, new String[]{"SET", "x", "1"}, new String[]{"EXEC"},
            new String[]{"DEL", "n", "m", "x"});
        final Map<String, String> redis = new TreeMap<>();
        final Map<String, String> dkv = new TreeMap<>();
        try (RawResp them = new RawResp(SERVERS.redis().port()); RawResp us = new RawResp(SERVERS.store().port()))
        {
            assertEquals(them.call("CONFIG", "RESETSTAT"), us.call("CONFIG", "RESETSTAT"));
            for (final String[] request : requests)
            {
                assertEquals(them.call(request), us.call(request), String.join(" ", request));
            }
            collect(them.call("INFO", "commandstats"), redis);
            collect(us.call("INFO", "commandstats"), dkv);
            assertEquals(errorStats(them.call("INFO", "errorstats")), errorStats(us.call("INFO", "errorstats")));
        }
        for (final String name : List.of("set", "get", "incr", "config|get", "multi", "exec", "del"))
        {
            assertTrue(redis.containsKey(name), name + " in " + redis);
            assertEquals(redis.get(name), dkv.get(name), "cmdstat_" + name + " (calls, rejected, failed)");
        }
    }

    @Test
    void eachFormOfInfoChoosesRedissSections() throws Exception
    {
        try (RawResp them = new RawResp(SERVERS.redis().port()); RawResp us = new RawResp(SERVERS.store().port()))
        {
            for (final String[] request : List.of(new String[]{"INFO"}, new String[]{"INFO", "default"},
                new String[]{"INFO", "all"}, new String[]{"INFO", "everything"}, new String[]{"INFO", "cpu"},
                new String[]{"INFO", "commandSTATS"}, new String[]{"INFO", "cpu", "sentinel"},
                new String[]{"INFO", "cpu", "all"}, new String[]{"INFO", "cpu", "default"},
                new String[]{"INFO", "errorstats", "server"}, new String[]{"INFO", "nosuchsection"}))
            {
                assertEquals(sections(them.call(request)), sections(us.call(request)), String.join(" ", request));
            }
            final String cpu = us.call("INFO", "cpu");
            for (final String field : List.of("used_cpu_sys", "used_cpu_user", "used_cpu_sys_children",
                "used_cpu_user_children"))
            {
                assertTrue(Pattern.compile(field + ":\\d+\\.\\d{6}\r\n").matcher(cpu).find(), field + " in " + cpu);
            }
            final String everything = us.call("INFO", "cpu", "all");
            assertFalse(everything.matches("(?s).*used_cpu_user_children.*used_cpu_user_children.*"), "once only");
            assertTrue(everything.contains("rejected_calls") && everything.contains("master_repl_offset"));
            assertFalse(us.call("INFO").contains("rejected_calls"), "commandstats is not a default section");
        }
    }

    @Test
    void infoMemoryNamesOnlyRedissFieldsBesidesItsOwnAndWritesThemAsRedisDoes() throws Exception
    {
        try (RawResp them = new RawResp(SERVERS.redis().port()); RawResp us = new RawResp(SERVERS.store().port()))
        {
            final Map<String, String> redis = InfoMemoryTest.fields(them.call("INFO", "memory"));
            final Map<String, String> dkv = InfoMemoryTest.fields(us.call("INFO", "memory"));
            for (final Map.Entry<String, String> field : dkv.entrySet())
            {
                final String name = field.getKey();
                if (name.startsWith("dkv_"))
                {
                    continue;
                }
                assertTrue(redis.containsKey(name), name + " is redis's too: " + redis.keySet());
                // the same shape: an integer, a figure with two decimals and a unit, a ratio, a percentage, a word;
                // the allocator's name is free text
                assertEquals(name.equals("mem_allocator") ? "w" : shape(redis.get(name)), shape(field.getValue()),
                    name + ": " + redis.get(name) + " against " + field.getValue());
            }
            for (final String name : List.of("used_memory", "used_memory_human", "used_memory_peak",
                "used_memory_dataset", "maxmemory", "maxmemory_policy", "mem_fragmentation_ratio"))
            {
                assertTrue(dkv.containsKey(name), name + " in " + dkv.keySet());
            }
        }
    }

    /** Redis's bytesToHuman writes bytes under a KiB as 123B, else as 1.23K, M, G, T or P: one shape. */
    private static String shape(final String value)
    {
        return value.matches("\\d+B|\\d+\\.\\d{2}[KMGTP]") ? "size" :
            value.replaceAll("\\d+", "9").replaceAll("[a-z-]+", "w");
    }

    @Test
    void appendonlyAndAppendfsyncAnswerAndChangeAsRedisDoes() throws Exception
    {
        // the store's memory node keeps nothing on disk and its node runs appendonly no, as redis-server here
        try (RawResp them = new RawResp(SERVERS.redis().port()); RawResp us = new RawResp(SERVERS.store().port()))
        {
            for (final String[] request : List.of(
                new String[]{"CONFIG", "GET", "appendonly"},
                new String[]{"CONFIG", "GET", "appendfsync"},
                new String[]{"CONFIG", "SET", "appendonly", "maybe"},
                new String[]{"CONFIG", "SET", "appendfsync", "sometimes"},
                new String[]{"CONFIG", "SET", "appendfsync", "no", "appendfsync", "always"},
                new String[]{"CONFIG", "SET", "appendfsync", "ALWAYS"},
                new String[]{"CONFIG", "GET", "appendfsync"},
                new String[]{"CONFIG", "SET", "appendfsync", "everysec", "list-compress-depth", "x"},
                new String[]{"CONFIG", "GET", "appendfsync"},
                new String[]{"CONFIG", "SET", "appendfsync", "everysec", "appendonly", "no"},
                new String[]{"CONFIG", "GET", "appendonly"}))
            {
                assertEquals(them.call(request), us.call(request), String.join(" ", request));
            }
        }
    }

    @Test
    void configSetOfEncodingSettingsAnswersAsRedisAndReadsBack() throws Exception
    {
        try (RawResp them = new RawResp(SERVERS.redis().port()); RawResp us = new RawResp(SERVERS.store().port()))
        {
            for (final String[] request : List.of(
                new String[]{"CONFIG", "SET", "hash-max-ziplist-entries", "32"},
                new String[]{"CONFIG", "GET", "hash-max-ziplist-entries"},
                new String[]{"CONFIG", "GET", "hash-max-listpack-entries"},
                new String[]{"CONFIG", "SET", "hash-max-listpack-value", "1kb"},
                new String[]{"CONFIG", "GET", "hash-max-listpack-value"},
                new String[]{"CONFIG", "SET", "hash-max-ziplist-value", "10", "set-max-intset-entries", "64"},
                new String[]{"CONFIG", "GET", "set-max-intset-entries"},
                new String[]{"CONFIG", "GET", "hash-max-listpack-value"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries", "-1"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries", "abc"},
                new String[]{"CONFIG", "SET", "hash-max-listpack-value", "-5"},
                new String[]{"CONFIG", "SET", "hash-max-listpack-value", "5xb"},
                new String[]{"CONFIG", "SET", "zset-max-listpack-value", "2MB"},
                new String[]{"CONFIG", "GET", "zset-max-listpack-value"},
                new String[]{"CONFIG", "SET", "list-max-listpack-size", "-2147483649"},
                new String[]{"CONFIG", "SET", "list-max-ziplist-size", "-3"},
                new String[]{"CONFIG", "GET", "list-max-listpack-size"},
                new String[]{"CONFIG", "SET", "list-compress-depth", "-1"},
                new String[]{"CONFIG", "SET", "stream-node-max-entries", "0"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries", "1", "set-max-intset-entries", "2"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries", "7", "zset-max-listpack-entries", "x"},
                new String[]{"CONFIG", "GET", "set-max-intset-entries"},
                new String[]{"CONFIG", "SET", "no-such-setting", "1"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries", "1", "nope", "2"},
                new String[]{"CONFIG", "SET", "set-max-intset-entries"},
                new String[]{"CONFIG", "SET", "a", "1", "b"},
                // maxmemory's value parsed as redis parses it (a limit set is RespOutOfMemoryTest's)
                new String[]{"CONFIG", "SET", "maxmemory", "bla"},
                new String[]{"CONFIG", "SET", "maxmemory", "-1"},
                new String[]{"CONFIG", "SET", "maxmemory", "0"},
                new String[]{"CONFIG", "SET", "maxmemory", "0mb"},
                new String[]{"CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64",
                    "set-max-intset-entries", "512", "zset-max-listpack-value", "64", "list-max-listpack-size", "-2",
                    "list-compress-depth", "0", "stream-node-max-entries", "100"}))
            {
                assertEquals(them.call(request), us.call(request), String.join(" ", request));
            }
            assertTrue(us.call("CONFIG", "SET", "maxclients", "5").contains("configured when started"));
            assertEquals("+OK", us.call("CONFIG", "SET", "save", ""), "a fixed setting given the value it has");
            assertTrue(us.call("CONFIG", "SET", "save", "", "maxmemory-policy", "allkeys-lru")
                .contains("configured when started"));
        }
    }

    /** @return each command's calls, rejected and failed calls, by name. */
    private static void collect(final String info, final Map<String, String> into)
    {
        final Matcher matcher = CMDSTAT.matcher(info);
        while (matcher.find())
        {
            into.put(matcher.group(1), matcher.group(2) + "," + matcher.group(3) + "," + matcher.group(4));
        }
    }

    private static String errorStats(final String info)
    {
        final StringBuilder lines = new StringBuilder();
        final Matcher matcher = Pattern.compile("errorstat_[^\r]+").matcher(info);
        while (matcher.find())
        {
            lines.append(matcher.group()).append('\n');
        }
        return lines.toString();
    }

    /** @return the section titles, in order. */
    private static String sections(final String info)
    {
        final StringBuilder titles = new StringBuilder();
        final Matcher matcher = Pattern.compile("# ([A-Za-z_]+)\r\n").matcher(info);
        while (matcher.find())
        {
            // redis 7.0 has sections this node has not (Latencystats is printed only by "all"), compared separately
            titles.append(matcher.group(1)).append(' ');
        }
        return titles.toString().trim();
    }
}
