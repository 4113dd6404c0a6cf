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
 * Pub/sub answers as redis-server 7 does on one node: scripted scenarios over several connections (a, b, c), each
 * step sent to redis-server and to a compute node in turn, get the same replies byte for byte. A step is a request
 * and its reply ({@code a PUBLISH ch m}), a request whose replies are read by later steps ({@code a !SUBSCRIBE x y}),
 * or the read of the next reply or message on a connection ({@code a <}); {@code => reply} names what both must give,
 * {@code ''} is an empty argument; a leading {@code ~} sends it to both without comparing (HELLO, whose reply names
 * the server; the order in which an UNSUBSCRIBE of all confirms channels, which is redis's hash table's, seeded at
 * random when it starts: dkv confirms them in the order subscribed).
 */
class RespPubSubDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    static Stream<Arguments> scenarios()
    {
        return Stream.of(
            scenario("SUBSCRIBE confirms each channel with the connection's count; PUBLISH counts receivers",
                "a !SUBSCRIBE c1 c2", "a < => *3[$subscribe, $c1, :1]", "a < => *3[$subscribe, $c2, :2]",
                "b PUBLISH c1 hello => :1", "b PUBLISH c2 world => :1", "b PUBLISH c3 nobody => :0",
                "a <", "a < => *3[$message, $c2, $world]", "a !UNSUBSCRIBE c1 c2", "a <", "a <",
                "b PUBLISH c1 hello => :0"),
            scenario("two subscribers of one channel",
                "a SUBSCRIBE ch", "b SUBSCRIBE ch", "c PUBLISH ch m => :2", "a <", "b <"),
            scenario("UNSUBSCRIBE without arguments ends every channel; with none left it still answers",
                "a !SUBSCRIBE c1 c2 c3", "a <", "a <", "a <", "a !UNSUBSCRIBE", "~a <", "~a <", "~a <",
                "b PUBLISH c1 x => :0", "a UNSUBSCRIBE => *3[$unsubscribe, $nil, :0]"),
            scenario("SUBSCRIBE to one channel twice", "a !SUBSCRIBE ch ch", "a <", "a < => *3[$subscribe, $ch, :1]",
                "b PUBLISH ch once => :1", "a <"),
            scenario("UNSUBSCRIBE from channels not subscribed to",
                "a !UNSUBSCRIBE x y", "a < => *3[$unsubscribe, $x, :0]", "a <", "a PING => +PONG"),
            scenario("PSUBSCRIBE: messages of every matching channel, with the pattern",
                "a !PSUBSCRIBE foo.* bar.?", "a <", "a <", "b PUBLISH foo.1 m1 => :1", "b PUBLISH bar.2 m2 => :1",
                "b PUBLISH bar.22 m3 => :0", "a < => *4[$pmessage, $foo.*, $foo.1, $m1]", "a <",
                "a !PUNSUBSCRIBE", "a <", "a <", "b PUBLISH foo.1 m1 => :0",
                "a PUNSUBSCRIBE => *3[$punsubscribe, $nil, :0]"),
            scenario("a channel and a pattern that matches it: the message twice, counted twice",
                "a SUBSCRIBE ch.1", "a PSUBSCRIBE ch.*", "b PUBLISH ch.1 twice => :2", "a <", "a <",
                "a !UNSUBSCRIBE ch.1", "a < => *3[$unsubscribe, $ch.1, :1]", "a PUNSUBSCRIBE ch.*"),
            scenario("PUNSUBSCRIBE and UNSUBSCRIBE always answer", "a PUNSUBSCRIBE x", "a UNSUBSCRIBE y",
                "a PUNSUBSCRIBE", "a UNSUBSCRIBE"),
            scenario("RESP2 subscribed mode: only pub/sub commands, PING answers as a message, RESET leaves it",
                "a SUBSCRIBE ch", "a GET k", "a SET k v", "a PING => *2[$pong, $]", "a PING hi => *2[$pong, $hi]",
                "a ECHO x", "a RESET => +RESET", "a PING => +PONG", "b PUBLISH ch m => :0"),
            scenario("RESP3: pushes, and every command allowed while subscribed",
                "~a HELLO 3", "a SUBSCRIBE ch => >3[$subscribe, $ch, :1]", "a PING => +PONG",
                "a GET nokey => _", "b PUBLISH ch m => :1", "a < => >3[$message, $ch, $m]",
                "a UNSUBSCRIBE => >3[$unsubscribe, $ch, :0]", "a UNSUBSCRIBE => >3[$unsubscribe, _, :0]"),
            scenario("PUBSUB NUMSUB, NUMPAT and CHANNELS",
                "a !SUBSCRIBE n1 n2", "a <", "a <", "b SUBSCRIBE n1", "c !PSUBSCRIBE p* q* p*", "c <", "c <", "c <",
                "d PUBSUB NUMSUB n1 n2 n3 => *6[$n1, :2, $n2, :1, $n3, :0]", "d PUBSUB NUMSUB => *0[]",
                "d PUBSUB NUMPAT => :2", "d PUBSUB CHANNELS n2", "d PUBSUB CHANNELS x*",
                "d PUBSUB CHANNELS a b", "d PUBSUB NUMPAT x", "d PUBSUB FOO", "d PUBSUB"),
            scenario("sharded pub/sub: a namespace of its own",
                "a !SSUBSCRIBE s1 s2", "a < => *3[$ssubscribe, $s1, :1]", "a <", "a SUBSCRIBE s1",
                "b SPUBLISH s1 m => :1", "a < => *3[$smessage, $s1, $m]", "b PUBLISH s2 m => :0",
                "b PUBSUB SHARDCHANNELS s1", "b PUBSUB SHARDNUMSUB s1 s3 => *4[$s1, :1, $s3, :0]",
                "a !SUNSUBSCRIBE", "~a <", "~a <", "a SUNSUBSCRIBE => *3[$sunsubscribe, $nil, :0]",
                "b SPUBLISH s1 m => :0", "b PUBLISH s1 m => :1", "a <"),
            scenario("arity", "a SUBSCRIBE", "a PSUBSCRIBE", "a SSUBSCRIBE", "a PUBLISH ch", "a PUBLISH ch m x",
                "a SPUBLISH ch", "a PUBSUB NUMSUB", "a PUBSUB HELP x"),
            scenario("PUBSUB HELP", "a PUBSUB HELP"),
            scenario("PUBLISH inside MULTI: counted in EXEC's reply, published once it ran",
                "a SUBSCRIBE tx", "b PSUBSCRIBE t*", "c MULTI", "c SET k v", "c PUBLISH tx m => +QUEUED",
                "c SPUBLISH tx s", "c EXEC => *3[+OK, :2, :0]", "a < => *3[$message, $tx, $m]",
                "b < => *4[$pmessage, $t*, $tx, $m]"),
            scenario("keyspace and keyevent notifications of each type's commands",
                "c CONFIG SET notify-keyspace-events KEA", "a PSUBSCRIBE __key*",
                "c SET foo bar", "a < => *4[$pmessage, $__key*, $__keyspace@0__:foo, $set]",
                "a < => *4[$pmessage, $__key*, $__keyevent@0__:set, $foo]",
                "c SET foo bar NX", "c SET foo baz XX EX 100", "a <", "a <", "a <", "a <", "c INCR n", "a <", "a <",
                "c APPEND foo x", "a <", "a <", "c MSET m1 1 m2 2", "a <", "a <", "a <", "a <",
                "c EXPIRE foo 100", "a <", "a <", "c PERSIST foo", "a <", "a <", "c PERSIST foo",
                "c RENAME foo foo2", "a <", "a <", "a <", "a <", "c DEL foo2", "a <", "a <", "c DEL nothing",
                "c LPUSH l a b", "a <", "a <", "c RPUSH l c", "a <", "a <", "c LPOP l", "a <", "a <",
                "c RPOP empty", "c LSET l 0 z", "a <", "a <", "c LMOVE l l2 LEFT RIGHT", "a <", "a <", "a <", "a <",
                "c SADD s a b", "a <", "a <", "c SADD s a", "c SREM s x", "c SREM s a", "a <", "a <",
                "c HSET h f v", "a <", "a <", "c HINCRBY h n 1", "a <", "a <", "c HDEL h nope",
                "c ZADD z 1 a", "a <", "a <", "c ZINCRBY z 2 a", "a <", "a <", "c ZREM z a", "a <", "a <",
                "c PUBLISH done 1 => :0", "c CONFIG SET notify-keyspace-events ''"),
            scenario("the STORE forms of sets and sorted sets: their event on the destination, del when emptied",
                "c CONFIG SET notify-keyspace-events KEA", "c SADD s1 a b", "c SADD s2 b c", "c ZADD z1 1 a 2 b",
                "c ZADD z2 3 b", "a PSUBSCRIBE __keyevent*",
                "c SINTERSTORE d s1 s2 => :1", "a < => *4[$pmessage, $__keyevent*, $__keyevent@0__:sinterstore, $d]",
                "c SUNIONSTORE d s1 s2", "a <", "c SDIFFSTORE d s1 s2", "a <", "c SDIFFSTORE d s1 s1 => :0",
                "a < => *4[$pmessage, $__keyevent*, $__keyevent@0__:del, $d]", "c SINTERSTORE d s1 none => :0",
                "c ZUNIONSTORE zd 2 z1 z2", "a < => *4[$pmessage, $__keyevent*, $__keyevent@0__:zunionstore, $zd]",
                "c ZINTERSTORE zd 2 z1 z2", "a <", "c ZDIFFSTORE zd 2 z1 z2", "a <",
                "c ZRANGESTORE zr z1 0 -1", "a < => *4[$pmessage, $__keyevent*, $__keyevent@0__:zrangestore, $zr]",
                "c ZRANGESTORE zr z1 5 6 => :0", "a < => *4[$pmessage, $__keyevent*, $__keyevent@0__:del, $zr]",
                "c ZDIFFSTORE zd 2 z1 z1 => :0", "a <", "c ZINTERSTORE zd 2 z1 none => :0",
                "c MULTI", "c SUNIONSTORE t s1", "c EXEC", "a <",
                "c PUBLISH done 1 => :0", "c CONFIG SET notify-keyspace-events ''"),
            scenario("notifications masked by class and kind",
                "c CONFIG SET notify-keyspace-events Kl", "a PSUBSCRIBE *", "c SET foo bar", "c LPUSH ml a",
                "a < => *4[$pmessage, $*, $__keyspace@0__:ml, $lpush]", "c CONFIG SET notify-keyspace-events Eg",
                "c EXPIRE ml 100", "a < => *4[$pmessage, $*, $__keyevent@0__:expire, $ml]", "c LPUSH ml b",
                "c CONFIG SET notify-keyspace-events ''", "c PUBLISH last x => :1", "a <"),
            scenario("CONFIG GET and SET of notify-keyspace-events",
                "a CONFIG GET notify-keyspace-events", "a CONFIG SET notify-keyspace-events gKE",
                "a CONFIG GET notify-keyspace-events", "a CONFIG SET notify-keyspace-events $lshzxeKE",
                "a CONFIG GET notify-keyspace-events", "a CONFIG SET notify-keyspace-events KA",
                "a CONFIG GET notify-keyspace-events", "a CONFIG SET notify-keyspace-events EAmn",
                "a CONFIG GET notify-keyspace-events", "a CONFIG SET notify-keyspace-events Kq",
                "a CONFIG SET notify-keyspace-events ''", "a CONFIG GET notify-keyspace-events"),
            scenario("CLIENT REPLY OFF, ON and SKIP; pub/sub's pushes go out whatever",
                "a !CLIENT REPLY OFF", "a !SET r1 v", "a !GET r1", "a CLIENT REPLY ON => +OK", "a GET r1 => $v",
                "a !CLIENT REPLY SKIP", "a !SET r1 w", "a GET r1 => $w", "a CLIENT REPLY MAYBE",
                "a !CLIENT REPLY OFF", "a !SUBSCRIBE rc", "a < => *3[$subscribe, $rc, :1]", "b PUBLISH rc m => :1",
                "a < => *3[$message, $rc, $m]", "a !UNSUBSCRIBE rc", "a < => *3[$unsubscribe, $rc, :0]",
                "a CLIENT REPLY ON => +OK"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachScenarioGetsRedisServersReplies(final String name, final List<String> steps) throws Exception
    {
        assumeTrue(SERVERS.redisInstalled(), "redis-server is not installed (.ci/run installs it)");
        DifferentialScenario.run(name, steps, SERVERS.redis().port(), SERVERS.store().port(), "FLUSHALL");
    }
}
