package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static io.dkv.compute.DifferentialScenario.scenario;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SORT and SORT_RO answer as redis-server 7.0 does. Scripted scenarios ({@link DifferentialScenario}: several
 * connections, each step sent to both servers, replies compared byte for byte): lists, sets and sorted sets sorted by
 * number and ALPHA, ASC and DESC, LIMIT's edges, BY patterns over strings and hash fields, BY without a star, GET
 * patterns, STORE (a list, or the destination removed), SORT_RO, the errors, RESP3, SORT inside MULTI and scripts, a
 * WATCH that SORT ... STORE breaks, a BLPOP it wakes, and its keyspace events. Random lists sorted BY weights with
 * many ties and LIMITs check the order of ties as redis's sorts leave them; binary elements and patterns check C's
 * string rules (a NUL ends a word, a pattern, a number, a strcoll comparison). What dkv refuses by design is checked
 * apart.
 */
class RespSortDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    static Stream<Arguments> scenarios()
    {
        return Stream.of(
            scenario("a list sorted by number, ASC and DESC, ties broken by the elements' bytes",
                "a RPUSH l 3 1 2 10 -5 1.5 0 01 1.0 +1", "a SORT l", "a SORT l DESC", "a SORT l ASC DESC ASC",
                "a SORT l desc asc desc", "a SORT l LIMIT 0 3", "a SORT l DESC LIMIT 2 3", "a SORT none => *0[]",
                "a RPUSH same 2 1 2 1", "a SORT same", "a SORT same DESC"),
            scenario("numbers as C's strtod reads them",
                "a RPUSH n ' 5' 1e2 0x10 inf -inf -0 +3 '' 007 .5 5. 1e-10 -INF Infinity 0x1p3 1e308",
                "a SORT n", "a SORT n DESC", "a RPUSH bad 1 abc", "a SORT bad",
                "a SORT bad DESC LIMIT 0 1", "a RPUSH nan 1 nan", "a SORT nan", "a RPUSH big 1 1e400", "a SORT big",
                "a RPUSH tiny 1 1e-400", "a SORT tiny", "a RPUSH trailing '5 '", "a SORT trailing",
                "a RPUSH space ' '", "a SORT space", "a RPUSH sub 1 5e-324", "a SORT sub", "a RPUSH sub2 1e-310",
                "a SORT sub2", "a RPUSH hexsub 0x1p-1074", "a SORT hexsub", "a RPUSH neg -1e400", "a SORT neg",
                "a SORT bad ALPHA"),
            scenario("ALPHA: bytes in order, ASC and DESC, LIMIT",
                "a RPUSH a b A a B 10 9 é '' ab aa Z _ ~", "a SORT a ALPHA", "a SORT a ALPHA DESC",
                "a SORT a ALPHA LIMIT 2 4", "a SORT a DESC ALPHA LIMIT 1 1", "a SORT a ALPHA STORE dst",
                "a LRANGE dst 0 -1"),
            scenario("sets: numeric, ALPHA, LIMIT",
                "a SADD s 5 3 9 1 -2 10", "a SORT s", "a SORT s DESC", "a SORT s ALPHA", "a SORT s LIMIT 1 3",
                "a SADD words pear apple fig banana kiwi", "a SORT words ALPHA", "a SORT words ALPHA DESC LIMIT 1 2",
                "a SORT words", "^a SORT words BY nosort", "^a SORT s BY nosort", "a SADD one x",
                "a SORT one BY nosort LIMIT 0 1", "a SORT words BY nosort LIMIT 0 0",
                "a SORT words BY nosort LIMIT 9 1"),
            scenario("sorted sets: sorted, or in score order BY a constant",
                "a ZADD z 3 c 1 a 2 b 10 x 2 bb", "a SORT z ALPHA", "a SORT z ALPHA DESC", "a SORT z BY nosort",
                "a SORT z BY nosort DESC", "a SORT z BY nosort LIMIT 1 2", "a SORT z BY nosort DESC LIMIT 1 2",
                "a SORT z BY nosort LIMIT 3 10", "a SORT z BY nosort DESC LIMIT 4 1", "a SORT z BY nosort LIMIT 9 1",
                "a ZADD zn 1 10 2 9 3 8 4 -1", "a SORT zn", "a SORT zn DESC LIMIT 0 2", "a SORT z"),
            scenario("LIMIT's edges: negative, zero, past the end, not integers",
                "a RPUSH l 5 4 3 2 1", "a SORT l LIMIT -1 2", "a SORT l LIMIT 0 -1", "a SORT l LIMIT 0 0",
                "a SORT l LIMIT 2 100", "a SORT l LIMIT 100 1", "a SORT l LIMIT 2 -5", "a SORT l LIMIT 4 1",
                "a SORT l LIMIT 5 1", "a SORT l LIMIT 9223372036854775807 1", "a SORT l LIMIT 1 9223372036854775807",
                "a SORT l LIMIT -9223372036854775808 2", "a SORT l LIMIT x 1", "a SORT l LIMIT 0 1.5",
                "a SORT l LIMIT 1", "a SORT l LIMIT 0 1 LIMIT 2 2", "a SORT l BY nosort LIMIT -1 2",
                "a SORT l BY nosort LIMIT 2 100", "a SORT l BY nosort DESC LIMIT 2 100",
                "a SORT l BY nosort LIMIT 100 1", "a SORT l BY nosort DESC LIMIT 0 0", "a SORT none LIMIT 0 1",
                "a SORT none BY nosort LIMIT 1 1"),
            scenario("BY a pattern over strings: weights, a missing one weighs 0, ALPHA by the values",
                "a RPUSH l 1 2 3 4", "a MSET w_1 30 w_2 10 w_3 20 w_4 -1", "a SORT l BY w_*", "a SORT l BY w_* DESC",
                "a SORT l BY w_* LIMIT 1 2", "a SORT l BY w_* DESC LIMIT 0 3", "a DEL w_2", "a SORT l BY w_*",
                "a MSET w_1 b w_3 a w_4 c", "a SORT l BY w_* ALPHA", "a SORT l BY w_* ALPHA DESC",
                "a SORT l BY w_*", "a SORT l BY *_w", "a MSET 1_w 4 2_w 3 3_w 2 4_w 1", "a SORT l BY *_w",
                "a SORT l BY pre*post", "a HSET w_5 f 1", "a RPUSH l 5", "a SORT l BY w_* ALPHA",
                "a SORT l BY w_* BY *_w", "a SORT l BY nosort BY *_w", "a SORT l BY *_w BY nosort"),
            scenario("BY and GET a hash's field with ->",
                "a RPUSH l 1 2 3", "a HSET h_1 f 3 g x", "a HSET h_2 f 1 g y", "a HSET h_3 f 2", "a SORT l BY h_*->f",
                "a SORT l BY h_*->f DESC GET h_*->g GET #", "a SORT l BY h_*->missing", "a SORT l BY h_*->g ALPHA",
                "a SET h_2-> str", "a SORT l BY h_*-> GET h_*-> GET h_*->f", "a SET s_1 5",
                "a SORT l BY s_*->f GET s_*->f GET s_*", "a SORT l BY *->f GET *->f", "a SORT l GET h_*->f->g",
                "a HSET h_1 f->g deep", "a SORT l GET h_*->f->g", "a SORT l BY h_*->g"),
            scenario("BY without a star leaves a list in its order",
                "a RPUSH l c a b", "a SORT l BY nosort", "a SORT l BY nosort DESC", "a SORT l BY nosort LIMIT 1 1",
                "a SORT l BY nosort GET #", "a SORT l BY nosort ALPHA", "a SORT l BY '' ", "a SORT l BY nosort STORE d",
                "a LRANGE d 0 -1"),
            scenario("GET: the element, strings, hash fields, nil where a pattern names no value",
                "a RPUSH l 2 1 3", "a MSET o_1 one o_2 two", "a HSET h_3 f three", "a SORT l GET #",
                "a SORT l GET # GET o_* GET h_*->f GET nokey_* GET constant", "a SORT l GET o_* DESC LIMIT 0 2",
                "a SORT l BY nosort GET o_*", "a SADD hs 1", "a SORT l GET hs", "a SORT l GET *",
                "a SET 1 raw", "a SORT l GET *", "a SORT l GET '#' GET '##'"),
            scenario("STORE: the result's length, the destination replaced, removed when the result is empty",
                "a RPUSH l 3 1 2", "a SORT l STORE dst => :3", "a LRANGE dst 0 -1", "a TYPE dst", "a SET dst string",
                "a EXPIRE dst 100", "a SORT l DESC STORE dst", "a LRANGE dst 0 -1", "a TTL dst", "a HSET hdst f v",
                "a SORT l STORE hdst", "a TYPE hdst", "a SORT empty STORE dst => :0", "a EXISTS dst => :0",
                "a SORT empty STORE never", "a EXISTS never", "a SORT l GET nokey_* STORE dst", "a LRANGE dst 0 -1",
                "a MSET o_1 x", "a SORT l GET # GET o_* STORE dst", "a LRANGE dst 0 -1", "a SORT l STORE l",
                "a LRANGE l 0 -1", "a SORT l STORE a STORE b", "a EXISTS a", "a LRANGE b 0 -1",
                "a SORT l LIMIT 5 5 STORE l", "a EXISTS l", "a SADD s b c a", "a SORT s BY nosort STORE d",
                "a LRANGE d 0 -1", "a SORT s BY nosort DESC LIMIT 1 5 STORE d", "a LRANGE d 0 -1",
                "a ZADD z 2 x 1 y", "a SORT z BY nosort STORE d", "a LRANGE d 0 -1"),
            scenario("SORT_RO: no STORE, everything else",
                "a RPUSH l 2 1 3", "a MSET w_1 3 w_2 2 w_3 1", "a SORT_RO l", "a SORT_RO l DESC LIMIT 0 2",
                "a SORT_RO l BY w_* GET #", "a SORT_RO l STORE x", "a EXISTS x", "a SORT_RO l ALPHA",
                "a SORT_RO none", "a SORT_RO", "a SET str v", "a SORT_RO str", "a SADD s b a",
                "^a SORT_RO s BY nosort"),
            scenario("errors: wrong types, syntax, arity, numbers",
                "a SET str v", "a HSET h f v", "a SORT str", "a SORT h", "a SORT str BY nosort", "a SORT str STORE d",
                "a EXISTS d", "a RPUSH l 1 2", "a SORT l foo", "a SORT l GET", "a SORT l BY", "a SORT l STORE",
                "a SORT l LIMIT", "a SORT l LIMIT 0", "a SORT", "a SORT l ASC foo", "a SORT str foo",
                "a SORT str LIMIT x 1", "a MSET w_1 x", "a SORT l BY w_*", "a SORT l BY w_* STORE d", "a EXISTS d",
                "a SORT l BY w_* ALPHA", "a RPUSH d keep", "a SORT l BY w_* STORE d", "a LRANGE d 0 -1"),
            scenario("RESP3: arrays, the null of GET, the count of STORE",
                "~a HELLO 3", "a RPUSH l 2 1", "a MSET o_1 x", "a SORT l", "a SORT l GET # GET o_*",
                "a SORT l STORE d", "a SORT_RO l DESC", "a SORT none", "a SORT l BY nosort GET nokey_*",
                "a SORT l BY o_* ALPHA", "~a HELLO 2"),
            scenario("inside MULTI: queued, run in EXEC's transaction",
                "a RPUSH l 3 1 2", "a MULTI", "a SORT l", "a SORT l STORE dst", "a LRANGE dst 0 -1",
                "a RPUSH l 0", "a SORT l DESC LIMIT 0 2", "a SORT str STORE x", "a SORT l LIMIT x", "a EXEC",
                "a LRANGE dst 0 -1", "a MULTI", "a SORT l foo", "a SORT_RO l STORE x", "a EXEC",
                "a MULTI", "a SORT", "a EXEC"),
            scenario("a WATCH broken by SORT ... STORE, even when an empty result removes the destination",
                "a FLUSHALL", "a LPUSH foo bar", "a WATCH foo", "a SORT emptylist STORE foo", "a MULTI", "a PING",
                "a EXEC => *nil", "a WATCH gone", "a SORT emptylist STORE gone", "a MULTI", "a PING",
                "a EXEC => *1[+PONG]", "a RPUSH src 2 1", "a WATCH dst", "b SORT src STORE dst", "a MULTI",
                "a PING", "a EXEC => *nil", "a WATCH src", "b SORT src", "a MULTI", "a PING",
                "a EXEC => *1[+PONG]"),
            scenario("a BLPOP on the destination is woken by SORT ... STORE",
                "b !BLPOP foo 0", "blocked 1", "a LPUSH notfoo hello hola aguacate konichiwa zanzibar",
                "a SORT notfoo ALPHA STORE foo => :5", "b < => *2[$foo, $aguacate]", "a LRANGE foo 0 -1",
                "b !BRPOP bar 0", "blocked 1", "a MULTI", "a SORT notfoo STORE bar LIMIT 0 1 ALPHA", "a EXEC",
                "b < => *2[$bar, $aguacate]", "b !BLPOP baz 0", "blocked 1",
                "a SORT notfoo GET # STORE x ALPHA STORE baz", "b <", "blocked 0"),
            scenario("a script: a set BY a constant comes out ordered ALPHA, its GETs with it",
                "a SADD myset a b c d e f g h i l m n o p q r s t u v z aa aaa azz",
                "a EVAL \"return redis.call('sort',KEYS[1],'by','_')\" 1 myset", "a DEL myset", "a SADD myset a b c",
                "a EVAL \"return redis.call('sort',KEYS[1],'by','_','get','#','get','_:*')\" 1 myset",
                "a RPUSH l c a b", "a EVAL \"return redis.call('sort',KEYS[1],'by','_')\" 1 l",
                "a EVAL \"return redis.call('sort',KEYS[1],'alpha','store',KEYS[2])\" 2 l d", "a LRANGE d 0 -1",
                "a EVAL_RO \"return redis.call('sort_ro',KEYS[1],'alpha')\" 1 l",
                "a EVAL_RO \"return redis.call('sort',KEYS[1],'alpha')\" 1 l",
                "a EVAL \"return redis.pcall('sort',KEYS[1],'foo')\" 1 l"),
            scenario("keyspace events: sortstore on the destination, del when an empty result removed it",
                "~a CONFIG SET notify-keyspace-events KEA", "n SUBSCRIBE __keyevent@0__:sortstore",
                "n SUBSCRIBE __keyevent@0__:del", "a RPUSH l 1", "a SORT l STORE dst", "n <",
                "a SORT empty STORE dst", "n <", "a SORT empty STORE dst", "a SORT l STORE dst", "n <",
                "~a CONFIG SET notify-keyspace-events ''"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachScenarioGetsRedisServersReplies(final String name, final List<String> steps) throws Exception
    {
        DifferentialScenario.run(SERVERS, name, steps);
    }

    /**
     * Random lists sorted by weights of few values (many ties, some missing), numeric and ALPHA, with LIMITs that
     * leave elements out (redis's partial quicksort) and without (its merge sort): every reply redis's.
     */
    @Test
    void tiesComeOutInRedissOrder() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            final Random random = new Random(29);
            for (int round = 0; round < 60; round++)
            {
                final int size = round < 20 ? random.nextInt(12) : random.nextInt(300);
                final List<String> push = new ArrayList<>(List.of("RPUSH", "l" + round));
                for (int i = 0; i < size; i++)
                {
                    final String element = "e" + random.nextInt(Math.max(1, size));
                    push.add(element);
                    if (random.nextInt(4) > 0)
                    {
                        both(redis, dkv, "SET", "w" + round + "_" + element, weight(random));
                    }
                }
                if (size > 0)
                {
                    both(redis, dkv, push.toArray(new String[0]));
                }
                for (int query = 0; query < 8; query++)
                {
                    final List<String> sort = new ArrayList<>(List.of("SORT", "l" + round, "BY", "w" + round + "_*"));
                    if (random.nextBoolean())
                    {
                        sort.add("ALPHA");
                    }
                    if (random.nextBoolean())
                    {
                        sort.add("DESC");
                    }
                    if (random.nextInt(4) > 0)
                    {
                        sort.addAll(List.of("LIMIT", Integer.toString(random.nextInt(size + 2) - 1),
                            Integer.toString(random.nextInt(size + 2) - 1)));
                    }
                    if (random.nextInt(3) == 0)
                    {
                        sort.addAll(List.of("GET", "#", "GET", "w" + round + "_*"));
                    }
                    both(redis, dkv, sort.toArray(new String[0]));
                }
            }
        }
    }

    private static String weight(final Random random)
    {
        return switch (random.nextInt(4))
        {
            case 0 -> Integer.toString(random.nextInt(3));
            case 1 -> "x" + random.nextInt(3);
            case 2 -> "";
            default -> Integer.toString(random.nextInt(3)) + ".0";
        };
    }

    /** Binary elements and patterns: ALPHA as C's strcoll (to a NUL) without STORE, as whole bytes with it. */
    @Test
    void binaryElementsAndPatternsAnswerAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "FLUSHALL");
            final byte[] list = bytes("bin");
            final byte[][] elements = {bytes("a\0c"), bytes("a\0b"), bytes("a"), {(byte)0xff}, bytes("é"),
                bytes("z"), bytes("12\0x"), {(byte)0x80, 0}, bytes("a\0a")};
            for (final byte[] element : elements)
            {
                bothBytes(redis, dkv, bytes("RPUSH"), list, element);
            }
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA"), bytes("DESC"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA"), bytes("STORE"), bytes("dst"));
            bothBytes(redis, dkv, bytes("LRANGE"), bytes("dst"), bytes("0"), bytes("-1"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA"), bytes("DESC"), bytes("STORE"), bytes("dst"));
            bothBytes(redis, dkv, bytes("LRANGE"), bytes("dst"), bytes("0"), bytes("-1"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA\0x"), bytes("GET"), bytes("#\0x"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("BY"), bytes("no\0*"), bytes("GET"), bytes("#"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("BY"), bytes("w_*\0"), bytes("ALPHA"));
            bothBytes(redis, dkv, bytes("RPUSH"), bytes("num"), bytes("12\0x"), bytes("3"), bytes("\0"));
            bothBytes(redis, dkv, bytes("SORT"), bytes("num"));
            bothBytes(redis, dkv, bytes("SET"), bytes("w_a\0c"), bytes("2"));
            bothBytes(redis, dkv, bytes("SET"), bytes("w_a\0b"), bytes("1"));
            bothBytes(redis, dkv, bytes("MSET"), bytes("w_a"), bytes("y"), bytes("w_z"), bytes("x"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("BY"), bytes("w_*"), bytes("ALPHA"), bytes("GET"),
                bytes("w_*"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("BY"), bytes("w_*"), bytes("ALPHA"), bytes("STORE"),
                bytes("dst"));
            bothBytes(redis, dkv, bytes("HSET"), bytes("h_z"), bytes("f\0g"), bytes("v"));
            bothBytes(redis, dkv, bytes("SORT"), list, bytes("ALPHA"), bytes("GET"), bytes("h_*->f\0g"),
                bytes("GET"), bytes("h_*->\0"));
        }
    }

    /**
     * Where dkv answers otherwise, by design: a string kept in pieces (longer than a value takes) is not read by a BY
     * or GET pattern, the command is refused before it changes anything; a STORE into a key the store keeps for itself
     * is refused as every command refuses one; a pattern that makes such a key (or an empty one) names no value.
     */
    @Test
    void aStringInPiecesAndTheStoresOwnKeysAreRefused() throws Exception
    {
        try (RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            dkv.call("DEL", "l", "big_1", "dst");
            dkv.call("RPUSH", "l", "1");
            assertEquals("+OK", dkv.call("SET", "big_1", "7".repeat(1_500_000)));
            final String refusal = "-ERR SORT of a string longer than 1048576 bytes is not served (dkv): pattern " +
                "'%s' names key 'big_1'";
            assertEquals(refusal.formatted("big_*"), dkv.call("SORT", "l", "GET", "big_*", "STORE", "dst"));
            assertEquals(refusal.formatted("big_*"), dkv.call("SORT", "l", "BY", "big_*"));
            assertEquals(":0", dkv.call("EXISTS", "dst"));
            assertEquals("-WRONGTYPE Operation against a key holding the wrong kind of value",
                dkv.call("SORT", "big_1"));
            final byte[] reserved = {0, 'd', 'k', 'v', 0, 1, 2, 3};
            assertTrue(dkv.call(bytes("SORT"), bytes("l"), bytes("STORE"), reserved)
                .contains("begins with \\x00dkv\\x00, which the store keeps"), "a STORE into a reserved key");
            assertEquals("*1[$nil]", dkv.call(bytes("SORT"), bytes("l"), bytes("GET"), new byte[]{0, 'd', 'k', 'v',
                0, '*'}));
            assertEquals("*1[$nil]", dkv.call("SORT", "l", "GET", "*", "BY", "nosort", "LIMIT", "0", "1"));
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }

    private static void bothBytes(final RawResp redis, final RawResp dkv, final byte[]... command) throws IOException
    {
        final String shown = String.join(" ", Arrays.stream(command)
            .map(word -> new String(word, StandardCharsets.ISO_8859_1).replace("\0", "\\0")).toList());
        assertEquals(redis.call(command), dkv.call(command), shown);
    }
}
