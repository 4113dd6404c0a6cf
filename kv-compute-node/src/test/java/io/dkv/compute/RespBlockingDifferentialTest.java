package io.dkv.compute;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static io.dkv.compute.DifferentialScenario.scenario;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Blocking commands answer as redis-server 7 does on one node: scripted scenarios over several connections, each step
 * sent to redis-server and to a compute node in turn. A step is a request and its reply ({@code b LPUSH k x}), a
 * request whose reply a later step reads ({@code a !BLPOP k 0}, then {@code a <}), or {@code blocked N}, which waits
 * until each server counts N blocked connections (INFO's blocked_clients): what orders two waiters, with no clock.
 * {@code => reply} names what both must give; a leading {@code ~} sends without comparing.
 */
class RespBlockingDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    static Stream<Arguments> scenarios()
    {
        return Stream.of(
            scenario("BLPOP and BRPOP of a list that holds elements answer at once",
                "a RPUSH k 1 2 3", "a BLPOP k 0 => *2[$k, $1]", "a BRPOP k 0 => *2[$k, $3]", "a BLPOP none k 0"),
            scenario("BLPOP blocks until a push from another connection",
                "a !BLPOP k 0", "blocked 1", "b LPUSH k x => :1", "a < => *2[$k, $x]", "b EXISTS k => :0",
                "blocked 0"),
            scenario("BLPOP of several keys: the first that holds one, and a waiter takes the key pushed",
                "a RPUSH k2 y", "a BLPOP k1 k2 0 => *2[$k2, $y]", "a !BRPOP k1 k2 0", "blocked 1",
                "b RPUSH k2 a b", "a < => *2[$k2, $b]", "b LRANGE k2 0 -1 => *1[$a]"),
            scenario("a key named twice is waited on once",
                "a !BZPOPMIN z1 z2 z2 z1 0", "blocked 1", "b ZADD z1 0 a", "a < => *3[$z1, $a, $0]",
                "a !BZPOPMIN z1 z2 z2 z1 0", "blocked 1", "b ZADD z2 1 b", "a < => *3[$z2, $b, $1]", "blocked 0",
                "b ZADD z1 0 a", "b ZADD z2 1 b", "a BZPOPMIN z1 z2 z2 z1 0 => *3[$z1, $a, $0]"),
            scenario("the longest waiter is served first",
                "a !BLPOP k 0", "blocked 1", "b !BLPOP k 0", "blocked 2", "c RPUSH k first", "a < => *2[$k, $first]",
                "c RPUSH k second", "b < => *2[$k, $second]"),
            scenario("a push of several elements serves several waiters",
                "a !BLPOP k 0", "blocked 1", "b !BLPOP k 0", "blocked 2", "c RPUSH k 1 2 3 => :3", "a <", "b <",
                "c LRANGE k 0 -1 => *1[$3]"),
            scenario("a timeout answers the null array", "a BLPOP k 0.05 => *nil", "a BRPOP k 0.01",
                "a BZPOPMIN z 0.01", "a BLMOVE k d LEFT RIGHT 0.01 => *nil", "a BRPOPLPUSH k d 0.01",
                "a BLMPOP 0.01 1 k LEFT", "a BZMPOP 0.01 1 z MIN"),
            scenario("timeouts that are not numbers or are negative",
                "a BLPOP k abc", "a BLPOP k -1", "a BLPOP k -0.5", "a BRPOP k 1x", "a BLMPOP x 1 k LEFT",
                "a BLPOP k 1e-3 => *nil"),
            scenario("a key of another kind is WRONGTYPE",
                "a SET s v", "a BLPOP s 0", "a BLPOP none s 0", "a BZPOPMIN s 0", "a BLMOVE s d LEFT LEFT 0",
                "a RPUSH l x", "a BLMOVE l s LEFT LEFT 0", "a LRANGE l 0 -1"),
            scenario("BLMOVE and BRPOPLPUSH move when the source is pushed",
                "a !BLMOVE src dst RIGHT LEFT 0", "blocked 1", "b RPUSH src 1 2", "a < => $2",
                "b LRANGE dst 0 -1 => *1[$2]", "a BRPOPLPUSH src dst 0 => $1", "b LRANGE dst 0 -1",
                "a BLMOVE src dst LEFT LEFT x", "a BLMOVE src dst UP LEFT 0"),
            scenario("a BLMOVE served wakes a BLPOP blocked on its destination",
                "b !BLPOP target 0", "blocked 1", "a !BLMOVE src target LEFT RIGHT 0", "blocked 2",
                "c RPUSH src foo", "a < => $foo", "b < => *2[$target, $foo]", "c EXISTS target => :0"),
            scenario("a write is answered after the waiters it woke took their elements (a circular move)",
                "a !BRPOPLPUSH l1 l2 0", "blocked 1", "b !BRPOPLPUSH l2 l1 0", "blocked 2", "c RPUSH l1 foo",
                "c LRANGE l1 0 -1 => *1[$foo]", "c LRANGE l2 0 -1 => *0[]", "a < => $foo", "b < => $foo"),
            scenario("a waiter whose destination is of another kind answers WRONGTYPE and the next takes the element",
                "c SET target1 nolist", "a !BRPOPLPUSH blist target1 0", "blocked 1", "b !BRPOPLPUSH blist target2 0",
                "blocked 2", "c LPUSH blist foo", "a <", "b < => $foo", "c LRANGE target2 0 -1 => *1[$foo]"),
            scenario("a key renamed into place wakes its waiter",
                "a !BLPOP foo 0", "blocked 1", "b LPUSH bob abc def hij", "b RENAME bob foo",
                "a < => *2[$foo, $hij]", "b LRANGE foo 0 -1 => *2[$def, $abc]"),
            scenario("BLMPOP and its errors",
                "a RPUSH k 1 2 3", "a BLMPOP 0 2 none k LEFT COUNT 2 => *2[$k, *2[$1, $2]]",
                "a BLMPOP 0 1 k RIGHT", "a !BLMPOP 0 2 x y LEFT COUNT 5", "blocked 1", "b RPUSH y 7 8",
                "a < => *2[$y, *2[$7, $8]]", "a BLMPOP 0 0 k LEFT", "a BLMPOP 0 3 k LEFT", "a BLMPOP 0 1 k UP",
                "a BLMPOP 0 1 k LEFT COUNT 0", "a BLMPOP 0 1 k LEFT COUNT 1 COUNT 2",
                "a BLMPOP 0 9223372036854775807 k LEFT", "a LMPOP 9223372036854775807 k LEFT",
                "a ZMPOP 9223372036854775807 k MIN", "a BZMPOP 0 -1 k MIN", "a LMPOP 1 k LEFT COUNT x",
                "a ZMPOP 2 k z MAX COUNT 0"),
            scenario("BZPOPMIN, BZPOPMAX and BZMPOP",
                "a ZADD z 1 a 2 b 3 c", "a BZPOPMIN z 0 => *3[$z, $a, $1]", "a BZPOPMAX none z 0 => *3[$z, $c, $3]",
                "a BZMPOP 0 1 z MIN COUNT 5 => *2[$z, *1[*2[$b, $2]]]", "a !BZPOPMAX z 0", "blocked 1",
                "b ZADD z 1.5 x 9 y", "a < => *3[$z, $y, $9]", "a BZMPOP 0 1 z MAX", "a BZMPOP 0 1 z UP"),
            scenario("RESP3: the null of a timeout and the double of a score",
                "~a HELLO 3", "a BLPOP k 0.01 => _", "a ZADD z 2.5 m", "a BZPOPMIN z 0 => *3[$z, $m, ,2.5]",
                "~a HELLO 2"),
            scenario("inside MULTI a blocking command does not block",
                "a MULTI", "a BLPOP k 0", "a BZPOPMIN z 0", "a BLMOVE k d LEFT LEFT 0", "a EXEC"),
            scenario("CLIENT UNBLOCK: as if timed out, or with the UNBLOCKED error",
                "~a CLIENT ID", "a !BLPOP k 0", "blocked 1", "~b CLIENT UNBLOCK <a> => :1", "a < => *nil",
                "a !BLPOP k 0", "blocked 1", "~b CLIENT UNBLOCK <a> ERROR", "a <", "b CLIENT UNBLOCK 999999 => :0",
                "b CLIENT UNBLOCK abc", "b CLIENT UNBLOCK 1 BAD", "b CLIENT UNBLOCK 1 timeout x"),
            scenario("a waiter that disconnected takes nothing",
                "a !BLPOP k 0", "blocked 1", "a close", "blocked 0", "b RPUSH k x", "b LRANGE k 0 -1 => *1[$x]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachScenarioGetsRedisServersReplies(final String name, final List<String> steps) throws Exception
    {
        assumeTrue(SERVERS.redisInstalled(), "redis-server is not installed (.ci/run installs it)");
        DifferentialScenario.run(name, steps, SERVERS.redis().port(), SERVERS.store().port(), "FLUSHALL");
    }
}
