package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sorted sets answer as redis-server 7.0's do: every command with its options and errors, scores written as redis
 * writes them, WRONGTYPE, the operations over several sets (sets among them) and their STORE forms, in RESP2 and
 * RESP3; and sorted sets of thousands of members (many tree nodes) changed and read by rank, score and member, reply
 * for reply. Random picks are checked by what they must hold; ZSCAN of a large set by the members it returns.
 */
class RespSortedSetDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @Test
    void sortedSetCommandsAnswerAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            run(redis, dkv);
        }
    }

    @Test
    void sortedSetCommandsAnswerAsRedisInResp3() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            redis.call("HELLO", "3");
            dkv.call("HELLO", "3");
            run(redis, dkv);
        }
    }

    private static void run(final RawResp redis, final RawResp dkv) throws IOException
    {
        both(redis, dkv, "FLUSHALL");
        for (final String line : List.of(
            "ZADD z 1 a 2 b 3 c 4 d 5 e", "ZADD z 2.5 bb 2.5 ba -1 neg +inf top -inf bottom", "ZCARD z", "ZCARD nope",
            "ZADD z NX 9 a 9 new", "ZADD z XX 9 a 9 new2", "ZADD z XX CH 10 a", "ZADD z GT CH 1 a 11 b",
            "ZADD z LT CH 12 c 0 d", "ZADD z NX XX 1 a", "ZADD z GT LT 1 a", "ZADD z NX GT 1 a", "ZADD z 1",
            "ZADD z nan a", "ZADD z x a", "ZADD z 1 a 2", "ZADD z INCR 1 a 2 b", "ZADD z INCR 5 a",
            "ZADD z INCR NX 5 a", "ZADD z INCR XX 5 nope", "ZADD z INCR GT -100 a", "ZADD z 0x10 hex 1e3 sci",
            "ZADD z ' 1' sp", "ZADD z 1e400 big", "ZADD z 1e-400 tiny", "ZADD z 5e-324 sub", "ZADD z 0.1 tenth",
            "ZADD z 1e20 e20 123456789012345678 long -0 negzero 1.5e-7 small", "ZINCRBY z 1.5 a",
            "ZINCRBY z x a", "ZINCRBY z 1 fresh", "ZINCRBY z -inf top", "ZINCRBY z +inf top", "ZSCORE z top",
            "ZSCORE z a", "ZSCORE z nope", "ZSCORE nope a", "ZMSCORE z a nope tenth", "ZMSCORE nope a",
            "ZRANK z a", "ZRANK z nope", "ZREVRANK z a", "ZREVRANK nope a", "ZRANGE z 0 -1 WITHSCORES",
            "ZRANGE z 0 -1", "ZRANGE z 2 5", "ZRANGE z -3 -1 WITHSCORES", "ZRANGE z 5 2", "ZRANGE z 100 200",
            "ZRANGE z 0 -1 REV", "ZRANGE z 1 3 REV WITHSCORES", "ZREVRANGE z 0 2 WITHSCORES", "ZREVRANGE z 0 -1",
            "ZRANGE z (1 5 BYSCORE", "ZRANGE z 5 (1 BYSCORE REV WITHSCORES", "ZRANGE z -inf +inf BYSCORE LIMIT 2 3",
            "ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES", "ZRANGE z 0 10 BYSCORE LIMIT 0 -1",
            "ZRANGE z 0 10 BYSCORE LIMIT -1 5", "ZRANGE z 0 10 BYSCORE LIMIT 100 5", "ZRANGE z 0 10 BYSCORE LIMIT 1 0",
            "ZRANGE z 0 1 LIMIT 0 1", "ZRANGE z 0 -1 LIMIT 0 -1", "ZRANGE z 0 1 BYLEX", "ZRANGE z - + BYLEX WITHSCORES",
            "ZRANGE z 0 1 REV REV", "ZRANGE z 0 1 BYSCORE BYLEX", "ZRANGE z 0 1 BOGUS", "ZRANGE z x 1",
            "ZRANGE z (x 1 BYSCORE", "ZRANGE z 1 2 BYSCORE LIMIT x 1", "ZRANGE z 1 2 BYSCORE LIMIT 1",
            "ZRANGEBYSCORE z -inf +inf WITHSCORES", "ZRANGEBYSCORE z (2.5 +inf LIMIT 1 2",
            "ZRANGEBYSCORE z 1 2 REV", "ZREVRANGEBYSCORE z +inf (2.5 WITHSCORES LIMIT 0 3",
            "ZREVRANGEBYSCORE z 1 5", "ZRANGEBYSCORE z 5 1", "ZRANGEBYSCORE z '' 5", "ZRANGEBYSCORE z ( 5",
            "ZRANGEBYSCORE z ' 1' 5", "ZCOUNT z -inf +inf", "ZCOUNT z (1 (5", "ZCOUNT z 5 1", "ZCOUNT z x 1",
            "ZCOUNT nope 0 1", "ZRANGE z 0 0 WITHSCORES", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYRANK z -2 -1",
            "ZREMRANGEBYRANK z 5 2", "ZREMRANGEBYRANK z x 1", "ZREMRANGEBYSCORE z (2.5 4", "ZREMRANGEBYSCORE z x 1",
            "ZRANGE z 0 -1 WITHSCORES", "ZREM z a nope b", "ZREM nope a", "ZREM z", "ZPOPMIN z", "ZPOPMAX z",
            "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMIN z -1", "ZPOPMIN z x", "ZPOPMIN z 1 2", "ZPOPMIN nope",
            "ZPOPMAX nope 3", "ZRANGE z 0 -1 WITHSCORES",
            "ZADD lex 0 a 0 b 0 c 0 d 0 e 0 f 0 ab 0 abc", "ZRANGEBYLEX lex - +", "ZRANGEBYLEX lex [b (e",
            "ZRANGEBYLEX lex (a [c LIMIT 1 2", "ZREVRANGEBYLEX lex + - LIMIT 0 3", "ZREVRANGEBYLEX lex [e (a",
            "ZRANGEBYLEX lex a c", "ZRANGEBYLEX lex [c [a", "ZRANGEBYLEX lex +a -", "ZRANGE lex [ab [d BYLEX",
            "ZRANGE lex [d [ab BYLEX REV", "ZLEXCOUNT lex [ab (d", "ZLEXCOUNT lex - +", "ZLEXCOUNT lex x y",
            "ZLEXCOUNT nope - +", "ZREMRANGEBYLEX lex [ab [abc", "ZREMRANGEBYLEX lex x y", "ZRANGE lex 0 -1",
            "ZADD s1 1 a 2 b 3 c", "ZADD s2 10 b 20 c 30 d", "SADD plain a d x", "SET str v", "HSET h f v",
            "ZUNION 2 s1 s2 WITHSCORES", "ZUNION 3 s1 s2 plain WITHSCORES", "ZINTER 2 s1 s2 WITHSCORES",
            "ZINTER 2 s1 s2 WEIGHTS 2 0.5 AGGREGATE MAX WITHSCORES", "ZUNION 2 s1 s2 AGGREGATE MIN WITHSCORES",
            "ZINTER 3 s1 s2 plain", "ZDIFF 2 s1 s2 WITHSCORES", "ZDIFF 2 s2 plain WITHSCORES", "ZDIFF 1 s1",
            "ZUNION 2 s1 nope WITHSCORES", "ZINTER 2 s1 nope", "ZUNION 0 s1", "ZUNION x s1", "ZUNION 3 s1 s2",
            "ZUNION 2 s1 s2 WEIGHTS 1", "ZUNION 2 s1 s2 WEIGHTS 1 x", "ZUNION 2 s1 s2 AGGREGATE avg",
            "ZDIFF 2 s1 s2 WEIGHTS 1 2", "ZUNION 2 s1 str", "ZUNION 2 s1 h WEIGHTS x y",
            "ZUNION 2 s1 s2 WEIGHTS inf -inf WITHSCORES", "ZINTERCARD 2 s1 s2", "ZINTERCARD 2 s1 s2 LIMIT 1",
            "ZINTERCARD 2 s1 s2 LIMIT -1", "ZINTERCARD 2 s1 s2 LIMIT a", "ZRANGE s2 [b [c BYLEX",
            "ZRANGEBYLEX s1 (a +", "ZLEXCOUNT s2 - [c", "ZRANGESTORE lexdst s2 [c + BYLEX", "ZINTERCARD 0 s1",
            "ZINTERCARD 2 s1 s2 WITHSCORES",
            "ZUNIONSTORE dst 2 s1 s2", "ZRANGE dst 0 -1 WITHSCORES", "ZINTERSTORE dst 2 s1 s2 WEIGHTS 1 2",
            "ZRANGE dst 0 -1 WITHSCORES", "ZDIFFSTORE dst 2 s1 s1", "EXISTS dst", "ZUNIONSTORE str 1 s1",
            "TYPE str", "ZUNIONSTORE s1 2 s1 s2", "ZRANGE s1 0 -1 WITHSCORES", "ZUNIONSTORE dst 2 s1 s2 WITHSCORES",
            "ZRANGESTORE dst s2 0 1", "ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst s2 (10 +inf BYSCORE LIMIT 0 1",
            "ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst s2 5 6", "EXISTS dst", "ZRANGESTORE dst nope 0 -1",
            "ZRANGESTORE dst s2 0 -1 WITHSCORES", "ZRANGESTORE h s2 0 0", "TYPE h",
            "ZRANDMEMBER nope", "ZRANDMEMBER nope 3", "ZRANDMEMBER s2 0", "ZRANDMEMBER s2 x",
            "ZRANDMEMBER s2 1 2", "ZRANDMEMBER s2 1 WITHSCORES x", "ZRANDMEMBER s2 -9223372036854775807 WITHSCORES",
            "ZSCAN s2 0", "ZSCAN s2 0 MATCH *c*", "ZSCAN s2 x", "ZSCAN nope 0", "ZSCAN s2 0 COUNT 0",
            "ZMPOP 1 nope MIN", "ZMPOP 2 nope s2 MIN COUNT 2", "ZMPOP 1 s2 MAX", "ZMPOP 0 s2 MIN", "ZMPOP x s2 MIN",
            "ZMPOP 1 s2 MID", "ZMPOP 1 s2 MIN COUNT 0", "ZMPOP 1 s2 MIN COUNT 1 COUNT 1", "ZMPOP 5 s2 MIN",
            "ZADD str 1 a", "ZSCORE str a", "ZRANGE str 0 -1", "ZCARD h", "ZPOPMIN str", "ZINCRBY str 1 a",
            "ZADD num 1 a", "RENAME num num2", "ZSCORE num2 a", "COPY num2 num3", "ZADD num3 2 b",
            "ZCARD num2", "ZCARD num3", "TYPE num3", "EXPIRE num3 100", "TTL num3", "PERSIST num3", "TTL num3",
            "DEL num2 num3", "EXISTS num2 num3", "ZADD gone 1 a", "ZREM gone a", "EXISTS gone"))
        {
            final String[] command = DifferentialScenario.words(line);
            assertEquals(redis.call(command), dkv.call(command), line);
        }
    }

    @Test
    void scoresAreWrittenAsRedisWritesThem() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "DEL", "scores");
            final Random random = new Random(37);
            for (int i = 0; i < 400; i++)
            {
                final double score = switch (i % 4)
                {
                    case 0 -> Double.longBitsToDouble(random.nextLong());
                    case 1 -> random.nextDouble() * Math.pow(10, random.nextInt(40) - 20);
                    case 2 -> random.nextInt(2000) - 1000 + random.nextInt(8) / 8.0;
                    default -> (double)random.nextLong();
                };
                if (Double.isNaN(score))
                {
                    continue;
                }
                final String text = i % 3 == 0 ? Double.toString(score) : String.format("%.25e", score);
                both(redis, dkv, "ZADD", "scores", text, "m" + i);
                both(redis, dkv, "ZSCORE", "scores", "m" + i);
                both(redis, dkv, "ZINCRBY", "scores", "0.1", "m" + i);
            }
            both(redis, dkv, "ZRANGE", "scores", "0", "-1", "WITHSCORES");
            both(redis, dkv, "ZRANGEBYSCORE", "scores", "-1e10", "(1e10", "WITHSCORES");
            both(redis, dkv, "ZCOUNT", "scores", "-1e-5", "1e-5");
        }
    }

    @Test
    void aSortedSetOfThousandsOfMembersAnswersAsRedis() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "DEL", "big", "other", "sum");
            final Random random = new Random(41);
            final List<String> add = new ArrayList<>(List.of("ZADD", "big"));
            final List<String> other = new ArrayList<>(List.of("ZADD", "other"));
            for (int i = 0; i < 4_000; i++)
            {
                final String member = "member:" + i + ":" + "x".repeat(random.nextInt(40));
                add.add(Integer.toString(random.nextInt(500)));
                add.add(member);
                if (i % 3 == 0)
                {
                    other.add(Integer.toString(random.nextInt(100)));
                    other.add(member);
                }
            }
            both(redis, dkv, add.toArray(new String[0]));
            both(redis, dkv, other.toArray(new String[0]));
            for (int i = 0; i < 4_000; i += 7)
            {
                final String member = add.get(3 + 2 * i);
                both(redis, dkv, "ZRANK", "big", member);
                both(redis, dkv, "ZREVRANK", "big", member);
                both(redis, dkv, "ZSCORE", "big", member);
                if (i % 5 == 0)
                {
                    both(redis, dkv, "ZINCRBY", "big", Integer.toString(random.nextInt(50) - 25), member);
                }
                if (i % 11 == 0)
                {
                    both(redis, dkv, "ZREM", "big", member);
                }
            }
            both(redis, dkv, "ZCARD", "big");
            for (int from = 0; from < 4_000; from += 397)
            {
                both(redis, dkv, "ZRANGE", "big", Integer.toString(from), Integer.toString(from + 150), "WITHSCORES");
                both(redis, dkv, "ZRANGE", "big", Integer.toString(-from - 1), Integer.toString(-from + 60), "REV");
                final String low = Integer.toString(from / 8);
                both(redis, dkv, "ZRANGEBYSCORE", "big", "(" + low, low + "9", "WITHSCORES", "LIMIT", "3", "40");
                both(redis, dkv, "ZREVRANGEBYSCORE", "big", "+inf", low, "LIMIT", Integer.toString(from / 10), "30");
                both(redis, dkv, "ZCOUNT", "big", low, "(" + (from / 8 + 37));
            }
            both(redis, dkv, "ZRANGE", "big", "0", "-1", "WITHSCORES");
            both(redis, dkv, "ZUNIONSTORE", "sum", "2", "big", "other", "WEIGHTS", "1", "-2");
            both(redis, dkv, "ZRANGE", "sum", "0", "-1", "WITHSCORES");
            both(redis, dkv, "ZINTER", "2", "other", "big", "AGGREGATE", "MAX", "WITHSCORES");
            both(redis, dkv, "ZDIFF", "2", "big", "other");
            both(redis, dkv, "ZREMRANGEBYSCORE", "big", "100", "(300");
            both(redis, dkv, "ZREMRANGEBYRANK", "big", "10", "1500");
            both(redis, dkv, "ZRANGE", "big", "0", "-1", "WITHSCORES");
            both(redis, dkv, "ZPOPMIN", "big", "25");
            both(redis, dkv, "ZPOPMAX", "big", "25");
            both(redis, dkv, "ZCARD", "big");
            assertEquals(new TreeSet<>(ScanReplies.scanAll(redis, List.of("ZSCAN", "sum"), "COUNT", "50")),
                new TreeSet<>(ScanReplies.scanAll(dkv, List.of("ZSCAN", "sum"), "COUNT", "50")));
            final TreeSet<String> all = new TreeSet<>(ScanReplies.elements(dkv.call("ZRANGE", "sum", "0", "-1")));
            final List<String> picked = ScanReplies.elements(dkv.call("ZRANDMEMBER", "sum", "60"));
            assertEquals(60, new TreeSet<>(picked).size(), "distinct picks");
            assertTrue(all.containsAll(picked));
            assertEquals(2 * 90, ScanReplies.elements(dkv.call("ZRANDMEMBER", "sum", "-90", "WITHSCORES")).size());
            both(redis, dkv, "DEL", "big", "other", "sum");
            both(redis, dkv, "ZPOPMIN", "big", "5000");
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }
}
