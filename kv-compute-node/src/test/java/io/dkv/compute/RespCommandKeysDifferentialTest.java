package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.dkv.compute.DifferentialScenario.scenario;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS answer as redis-server 7.0 does: scenarios ({@link DifferentialScenario})
 * over keys found by position, by a numkeys (and redis's fallback when it is no count), by SORT's, SET's and
 * BITFIELD's own rules, each key's flags, and the errors; then every command this node serves (COMMAND's list, and the
 * containers' subcommands) over argument lists of several lengths and shapes, both subcommands.
 */
class RespCommandKeysDifferentialTest
{
    private static final Pattern COMMAND_ENTRY = Pattern.compile("\\*10\\[\\$([a-z_|]+), :(-?\\d+)");

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    static Stream<Arguments> scenarios()
    {
        return Stream.of(
            scenario("COMMAND GETKEYS: keys by position, by a numkeys, by SORT's options",
                "a COMMAND GETKEYS get k", "a COMMAND GETKEYS set k v", "a COMMAND GETKEYS mset a 1 b 2",
                "a COMMAND GETKEYS mset a 1 b", "a COMMAND GETKEYS del a b c", "a COMMAND GETKEYS lcs a b",
                "a COMMAND GETKEYS eval s 2 a b c", "a COMMAND GETKEYS eval s 0", "a COMMAND GETKEYS eval s x a",
                "a COMMAND GETKEYS eval s 2x a b c", "a COMMAND GETKEYS eval s 5 a", "a COMMAND GETKEYS eval s -1 a",
                "a COMMAND GETKEYS evalsha s 1 k", "a COMMAND GETKEYS eval_ro s 1 k a",
                "a COMMAND GETKEYS evalsha_ro s 1 k", "a COMMAND GETKEYS fcall test 1 x foo",
                "a COMMAND GETKEYS fcall_ro test 1 x foo", "a COMMAND GETKEYS fcall test 0",
                "a COMMAND GETKEYS zunionstore d 2 a b", "a COMMAND GETKEYS zunionstore d 2x a b",
                "a COMMAND GETKEYS zunionstore d 3 a b", "a COMMAND GETKEYS zunionstore d 0 a b",
                "a COMMAND GETKEYS zunion 2 a b WITHSCORES", "a COMMAND GETKEYS zinterstore d 1 a",
                "a COMMAND GETKEYS zdiffstore d 2 a b", "a COMMAND GETKEYS zdiff 1 a", "a COMMAND GETKEYS zinter 3 a b",
                "a COMMAND GETKEYS zintercard 2 a b LIMIT 1", "a COMMAND GETKEYS sintercard 2 a b",
                "a COMMAND GETKEYS sintercard 4294967297 a b", "a COMMAND GETKEYS lmpop 2 a b LEFT",
                "a COMMAND GETKEYS zmpop 1 a MIN", "a COMMAND GETKEYS blmpop 0 2 a b LEFT",
                "a COMMAND GETKEYS bzmpop 0 1 a MIN", "a COMMAND GETKEYS blmpop 0 '' a LEFT",
                "a COMMAND GETKEYS blpop a b 0", "a COMMAND GETKEYS brpop a 0", "a COMMAND GETKEYS bzpopmin a b 0",
                "a COMMAND GETKEYS blmove a b LEFT RIGHT 0", "a COMMAND GETKEYS sort k",
                "a COMMAND GETKEYS sort k STORE d", "a COMMAND GETKEYS sort k BY w_* GET h_* STORE d LIMIT 0 1 STORE e",
                "a COMMAND GETKEYS sort k GET store", "a COMMAND GETKEYS sort k LIMIT store 1 STORE",
                "a COMMAND GETKEYS sort k store", "a COMMAND GETKEYS sort_ro k BY x STORE d",
                "a COMMAND GETKEYS lmove a b left right", "a COMMAND GETKEYS rename a b", "a COMMAND GETKEYS copy a b",
                "a COMMAND GETKEYS bitop and d a b", "a COMMAND GETKEYS memory usage k",
                "a COMMAND GETKEYS object encoding k", "a COMMAND GETKEYS MEMORY USAGE k SAMPLES 5",
                "a COMMAND GETKEYS exists a b", "a COMMAND GETKEYS watch a b", "a COMMAND GETKEYS sdiffstore d a b"),
            scenario("COMMAND GETKEYSANDFLAGS: each key's flags, as the spec (or function) that found it says",
                "a COMMAND GETKEYSANDFLAGS get k", "a COMMAND GETKEYSANDFLAGS set k v",
                "a COMMAND GETKEYSANDFLAGS set k v GET", "a COMMAND GETKEYSANDFLAGS set k v EX 1 get",
                "a COMMAND GETKEYSANDFLAGS bitfield k get u8 0", "a COMMAND GETKEYSANDFLAGS bitfield k set u8 0 1",
                "a COMMAND GETKEYSANDFLAGS bitfield k", "a COMMAND GETKEYSANDFLAGS bitfield k overflow wrap get u8 0",
                "a COMMAND GETKEYSANDFLAGS bitfield k get u8", "a COMMAND GETKEYSANDFLAGS bitfield_ro k get u8 0",
                "a COMMAND GETKEYSANDFLAGS mset a 1 b 2", "a COMMAND GETKEYSANDFLAGS msetnx a 1",
                "a COMMAND GETKEYSANDFLAGS lmove a b left right", "a COMMAND GETKEYSANDFLAGS rename a b",
                "a COMMAND GETKEYSANDFLAGS renamenx a b", "a COMMAND GETKEYSANDFLAGS copy a b",
                "a COMMAND GETKEYSANDFLAGS eval s 2 a b", "a COMMAND GETKEYSANDFLAGS eval_ro s 1 a",
                "a COMMAND GETKEYSANDFLAGS eval s 2x a b", "a COMMAND GETKEYSANDFLAGS zunionstore d 2 a b",
                "a COMMAND GETKEYSANDFLAGS zunionstore d 2x a b", "a COMMAND GETKEYSANDFLAGS sort k STORE d",
                "a COMMAND GETKEYSANDFLAGS sort_ro k", "a COMMAND GETKEYSANDFLAGS del a b",
                "a COMMAND GETKEYSANDFLAGS blpop a 0", "a COMMAND GETKEYSANDFLAGS append k v",
                "a COMMAND GETKEYSANDFLAGS hsetnx k f v", "a COMMAND GETKEYSANDFLAGS getdel k",
                "a COMMAND GETKEYSANDFLAGS sinterstore d a", "a COMMAND GETKEYSANDFLAGS exists a",
                "a COMMAND GETKEYSANDFLAGS lmpop 1 a LEFT", "a COMMAND GETKEYSANDFLAGS zmpop 1 a MIN"),
            scenario("COMMAND GETKEYS's errors",
                "a COMMAND GETKEYS foo a", "a COMMAND GETKEYS ping", "a COMMAND GETKEYS publish c m",
                "a COMMAND GETKEYS spublish c m", "a COMMAND GETKEYS ssubscribe c", "a COMMAND GETKEYS get",
                "a COMMAND GETKEYS get a b", "a COMMAND GETKEYS", "a COMMAND GETKEYSANDFLAGS",
                "a COMMAND GETKEYS object",
                "a COMMAND GETKEYS object foo k", "a COMMAND GETKEYS object encoding", "a COMMAND GETKEYS zunion 3 a",
                "a COMMAND GETKEYS zunion x a", "a COMMAND GETKEYS lmpop 0 a LEFT", "a COMMAND GETKEYS sort",
                "a COMMAND GETKEYS command getkeys get k", "a COMMAND GETKEYSANDFLAGS foo",
                "a COMMAND GETKEYSANDFLAGS zunion 3 a", "a COMMAND GETKEYS blpop a", "a COMMAND GETKEYS config get x",
                "a COMMAND GETKEYS eval s 5 a"),
            scenario("RESP3: flags as a set, the empty array of a script's keys",
                "~a HELLO 3", "a COMMAND GETKEYSANDFLAGS set k v get", "a COMMAND GETKEYSANDFLAGS zunionstore d 2x a b",
                "a COMMAND GETKEYSANDFLAGS eval s 0", "a COMMAND GETKEYS lmove a b left left",
                "a COMMAND GETKEYSANDFLAGS foo", "~a HELLO 2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachScenarioGetsRedisServersReplies(final String name, final List<String> steps) throws Exception
    {
        DifferentialScenario.run(SERVERS, name, steps);
    }

    /** Words that C reads to their first NUL: a GET of SET, a STORE of SORT. */
    @Test
    void wordsAreReadAsCReadsThem() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String[] request : List.of(new String[]{"COMMAND", "GETKEYS", "SET", "k", "v", "get\0x"},
                new String[]{"COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "get\0x"},
                new String[]{"COMMAND", "GETKEYS", "SORT", "k", "store\0", "d"},
                new String[]{"COMMAND", "GETKEYSANDFLAGS", "BITFIELD", "k", "GET\0", "u8", "0"}))
            {
                final byte[][] bytes = new byte[request.length][];
                for (int i = 0; i < request.length; i++)
                {
                    bytes[i] = request[i].getBytes(StandardCharsets.UTF_8);
                }
                assertEquals(redis.call(bytes), dkv.call(bytes), String.join(" ", request).replace("\0", "\\0"));
            }
        }
    }

    /**
     * The keys of a request to every command this node serves (COMMAND's list, and the containers' subcommands that
     * have keys), over argument lists of several lengths and shapes: GETKEYS's and GETKEYSANDFLAGS's replies, errors
     * and all, are redis's.
     */
    @Test
    void everyServedCommandsKeysAreRediss() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            final Map<String, Integer> served = new LinkedHashMap<>();
            final Matcher entry = COMMAND_ENTRY.matcher(dkv.call("COMMAND"));
            while (entry.find())
            {
                served.put(entry.group(1), Integer.parseInt(entry.group(2)));
            }
            assertTrue(served.containsKey("sort") && served.containsKey("sort_ro") && served.size() > 150,
                served.keySet().toString());
            final List<List<String>> names = new ArrayList<>();
            served.keySet().forEach(name -> names.add(List.of(name)));
            for (final String sub : List.of("memory usage", "object encoding", "object freq", "object idletime",
                "object refcount", "object help", "client id", "config get", "command getkeys", "script load",
                "function list", "pubsub channels", "cluster keyslot"))
            {
                names.add(List.of(sub.split(" ")));
            }
            final List<List<String>> shapes = List.of(List.of(), List.of("k1"), List.of("k1", "k2"),
                List.of("k1", "k2", "k3"), List.of("k1", "v1", "k2", "v2"), List.of("2", "a", "b", "c"),
                List.of("0", "2", "a", "b", "LEFT"), List.of("k", "v", "GET"), List.of("1", "a", "0"));
            int compared = 0;
            for (final List<String> name : names)
            {
                for (final List<String> shape : shapes)
                {
                    for (final String sub : List.of("GETKEYS", "GETKEYSANDFLAGS"))
                    {
                        final List<String> request = new ArrayList<>(List.of("COMMAND", sub));
                        request.addAll(name);
                        request.addAll(shape);
                        both(redis, dkv, request.toArray(new String[0]));
                        compared++;
                    }
                }
            }
            assertTrue(compared > 3_000, "requests compared: " + compared);
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }
}
