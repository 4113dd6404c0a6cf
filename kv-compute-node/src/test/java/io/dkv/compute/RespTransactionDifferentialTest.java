package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.dkv.compute.DifferentialScenario.scenario;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH answer as redis-server 7 does: scripted scenarios over several connections
 * (a, b, c), each step sent to redis-server and to a compute node in turn, get the same replies byte for byte:
 * QUEUED, each command's reply in its slot of EXEC's array (errors at run time included), EXECABORT after a command
 * refused while queuing, the misuses' errors, nil (RESP2's null array, RESP3's null) when a watched key was changed by
 * another connection, by this one, by a delete or an expiry, and what EXEC, DISCARD and a failed EXEC unwatch. A step
 * may also name the reply both must give ({@code => reply}), and a step marked {@code ~} is sent to both but not
 * compared (HELLO, whose reply names the server's mode).
 */
class RespTransactionDifferentialTest
{
    private static final String[] KEYS = {"k", "k2", "w", "e", "s", "n"};

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    static Stream<Arguments> scenarios()
    {
        return Stream.of(
            scenario("queued commands run in order, each reply in its slot",
                "a MULTI => +OK", "a SET k 1 => +QUEUED", "a INCR k => +QUEUED", "a GET k", "a MGET k k2",
                "a EXISTS k k2", "a EXEC => *5[+OK, :2, $2, *2[$2, $nil], :1]", "a GET k => $2"),
            scenario("another connection sees nothing of what is queued until EXEC",
                "a MULTI", "a SET k 1", "b GET k => $nil", "a EXEC", "b GET k => $1"),
            scenario("an empty transaction", "a MULTI", "a EXEC => *0[]"),
            scenario("DISCARD drops what was queued; DISCARD and EXEC without MULTI are errors",
                "a SET k 1", "a MULTI", "a INCR k", "a DISCARD => +OK", "a GET k => $1",
                "a DISCARD => -ERR DISCARD without MULTI", "a EXEC => -ERR EXEC without MULTI"),
            scenario("MULTI inside MULTI and WATCH inside MULTI are errors that leave the transaction to run",
                "a MULTI", "a MULTI => -ERR MULTI calls can not be nested", "a SET k 2",
                "a WATCH k => -ERR WATCH inside MULTI is not allowed", "a EXEC => *1[+OK]"),
            scenario("a command of unknown name or wrong arity while queuing makes EXEC answer EXECABORT",
                "a MULTI", "a SET k 1", "a GET", "a FOO bar", "a CLIENT FOO", "a CONFIG", "a SET k 2",
                "a EXEC => -EXECABORT Transaction discarded because of previous errors.", "a GET k => $nil",
                "a EXEC => -ERR EXEC without MULTI"),
            scenario("EXEC of wrong arity aborts the transaction at once, in MULTI or not",
                "a MULTI", "a SET k 1", "a EXEC x", "a EXEC", "a GET k => $nil", "a EXEC x y"),
            scenario("MULTI, DISCARD, WATCH and UNWATCH of wrong arity",
                "a MULTI x", "a WATCH", "a UNWATCH x", "a MULTI", "a DISCARD x", "a UNWATCH x", "a DISCARD",
                "a MULTI", "a MULTI x", "a EXEC"),
            scenario("errors at run time take their slots and the other commands take effect",
                "a SET s abc", "a MULTI", "a INCR s", "a SET k 5", "a INCRBY k abc", "a APPEND k x",
                "a MSET k2 1 k", "a INCRBY k 9223372036854775807", "a PING a b",
                "a EXEC", "a GET k => $5x", "a GET s => $abc"),
            scenario("commands redis never queues are refused and make EXEC answer EXECABORT",
                "a MULTI", "a SAVE => -ERR Command not allowed inside a transaction", "a EXEC",
                "a MULTI", "a SAVE x", "a EXEC"),
            scenario("SET's options, GETEX, GETDEL, GETSET and SETNX inside a transaction",
                "a MULTI", "a SET k v NX", "a SET k w NX GET", "a SET k x XX KEEPTTL GET", "a GETEX k PERSIST",
                "a GETSET k y", "a SETNX k z", "a GETDEL k", "a SET k v EX 100", "a TTL k", "a EXPIRE k 200 GT",
                "a PERSIST k", "a TTL k", "a SETEX k2 100 v", "a EXPIRE k2 5 XX", "a EXPIRE k2 5 NX", "a STRLEN k2",
                "a EXEC"),
            scenario("MSET and MSETNX inside a transaction, a key given twice",
                "a MULTI", "a MSETNX k 1 k 2", "a MSETNX k 3 k2 4", "a MSET k2 a k2 b", "a MGET k k2", "a DEL k k2 n",
                "a EXISTS k k2", "a EXEC"),
            scenario("counters inside a transaction add to what the transaction wrote",
                "a SET n 10", "a MULTI", "a INCR n", "a INCRBY n 5", "a DECR n", "a DECRBY n 20", "a GET n",
                "a APPEND n 0", "a INCR n", "a EXEC"),
            scenario("a key watched and changed by another connection: EXEC answers nil and runs nothing",
                "a SET w 1", "a WATCH w => +OK", "b SET w 2", "a MULTI", "a SET k 1", "a GET w", "a EXEC => *nil",
                "a GET k => $nil", "a GET w => $2"),
            scenario("a key watched and not changed: EXEC runs",
                "a SET w 1", "a WATCH w", "b GET w", "a MULTI", "a INCR w", "a EXEC => *1[:2]"),
            scenario("a key watched and changed by this connection before MULTI",
                "a SET w 1", "a WATCH w", "a SET w 1", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("what the transaction itself writes to a watched key does not fail it",
                "a SET w 1", "a WATCH w", "a MULTI", "a SET w 2", "a EXEC => *1[+OK]", "a GET w => $2"),
            scenario("a key watched while it had no value, then set by another connection",
                "a WATCH n", "b SET n 1", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key watched while it had no value, and still none",
                "a WATCH n", "b GET n", "a MULTI", "a SET n 1", "a EXEC => *1[+OK]"),
            scenario("a key watched and deleted by another connection",
                "a SET w 1", "a WATCH w", "b DEL w", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key watched and given an expiry by another connection",
                "a SET w 1", "a WATCH w", "b EXPIRE w 100", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key watched and set to the same value by another connection",
                "a SET w 1", "a WATCH w", "b SET w 1", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key watched that expires before EXEC",
                "a PSETEX e 300 v", "a WATCH e", "sleep 600", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key that had expired when watched and has no value still",
                "a PSETEX e 100 v", "sleep 300", "a WATCH e", "a MULTI", "a GET e", "a EXEC => *1[$nil]"),
            scenario("one of several keys watched changes",
                "a SET w 1", "a SET k 1", "a WATCH w k n", "b INCR k", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("a key watched twice counts from the first WATCH",
                "a SET w 1", "a WATCH w", "b SET w 9", "a WATCH w", "a MULTI", "a PING", "a EXEC => *nil"),
            scenario("UNWATCH forgets the keys watched",
                "a SET w 1", "a WATCH w", "a UNWATCH => +OK", "b SET w 3", "a MULTI", "a GET w",
                "a EXEC => *1[$3]"),
            scenario("UNWATCH inside MULTI is queued and does not save a changed key",
                "a SET w 1", "a WATCH w", "a MULTI", "a UNWATCH => +QUEUED", "b SET w 2", "a EXEC => *nil"),
            scenario("EXEC unwatches",
                "a SET w 1", "a WATCH w", "a MULTI", "a EXEC => *0[]", "b SET w 2", "a MULTI", "a PING",
                "a EXEC => *1[+PONG]"),
            scenario("a nil EXEC unwatches",
                "a SET w 1", "a WATCH w", "b SET w 2", "a MULTI", "a EXEC => *nil", "b SET w 3", "a MULTI",
                "a PING", "a EXEC => *1[+PONG]"),
            scenario("DISCARD unwatches",
                "a SET w 1", "a WATCH w", "a MULTI", "a DISCARD", "b SET w 2", "a MULTI", "a PING",
                "a EXEC => *1[+PONG]"),
            scenario("a refused EXEC (EXECABORT) unwatches",
                "a SET w 1", "a WATCH w", "a MULTI", "a FOO", "a EXEC", "b SET w 2", "a MULTI", "a PING",
                "a EXEC => *1[+PONG]"),
            scenario("an EXEC of wrong arity unwatches",
                "a SET w 1", "a WATCH w", "a EXEC x", "b SET w 2", "a MULTI", "a PING", "a EXEC => *1[+PONG]"),
            scenario("a key changed after MULTI, before EXEC",
                "a SET w 1", "a WATCH w", "a MULTI", "a INCR w", "b INCR w", "a EXEC => *nil", "a GET w => $2"),
            scenario("RESP3: EXEC's nil is RESP3's null, and nils in its array too",
                "~a HELLO 3", "a SET w 1", "a WATCH w", "b SET w 2", "a MULTI", "a GET n", "a EXEC => _",
                "a MULTI", "a GET n", "a GET w", "a SET k v GET", "a EXEC => *3[_, $2, _]", "~a HELLO 2",
                "a MULTI", "a GET n", "a EXEC => *1[$nil]"),
            scenario("connection commands inside a transaction",
                "a MULTI", "a PING", "a ECHO hi", "a SELECT 0", "a SELECT 1", "a CLIENT SETNAME tx", "a CLIENT GETNAME",
                "a AUTH secret", "a EXEC", "a CLIENT GETNAME => $tx"),
            scenario("QUIT inside MULTI closes the connection; nothing queued runs",
                "a MULTI", "a SET k 1", "a QUIT => +OK", "b GET k => $nil"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachScenarioGetsRedisServersReplies(final String name, final List<String> steps) throws Exception
    {
        final String[] del = new String[KEYS.length + 1];
        del[0] = "DEL";
        System.arraycopy(KEYS, 0, del, 1, KEYS.length);
        DifferentialScenario.run(name, steps, SERVERS.redis().port(), SERVERS.store().port(), del);
    }

    /** A client that pipelines a transaction (one write, the replies read after) gets redis's replies. */
    @Test
    void aPipelinedTransactionGetsRedisServersReplies() throws Exception
    {
        final String[][] pipeline = {{"SET", "k", "1"}, {"MULTI"}, {"GET", "k"}, {"INCR", "k"}, {"MGET", "k", "n"},
            {"GET", "k"}, {"EXEC"}, {"GET", "k"}, {"MGET", "k", "n"}};
        final List<String> theirs = pipelined(SERVERS.redis().port(), pipeline);
        final List<String> ours = pipelined(SERVERS.store().port(), pipeline);
        assertEquals(theirs, ours);
        assertEquals("*4[$1, :2, *2[$2, $nil], $2]", ours.get(6));
    }

    /**
     * A difference from redis, kept in sight: dkv compares a watched key's version, and "no value" has none, so a key
     * that had no value when watched and has none again at EXEC passes, where redis's EXEC fails after any write to
     * the key (here a SET and a DEL by another connection).
     */
    @Test
    void aKeyWithNoValueWhenWatchedAndNoneAgainAtExecDoesNotFailExecAsRedisDoes() throws Exception
    {
        final String[] steps = {"WATCH n", "b SET n 1", "b DEL n", "MULTI", "PING", "EXEC"};
        final String ours = run(SERVERS.store().port(), steps);
        assertEquals("*1[+PONG]", ours);
        if (SERVERS.redisInstalled())
        {
            assertEquals("*nil", run(SERVERS.redis().port(), steps));
        }
    }

    /**
     * With a password required, EXEC before AUTH is refused as redis refuses it (EXECABORT, saying why), MULTI is
     * refused, and AUTH inside MULTI is queued and runs at EXEC: the replies redis-server 7.0.15 run with
     * {@code --requirepass} gives.
     */
    @Test
    void execBeforeAuthAndAuthInsideMultiAnswerAsRedis() throws Exception
    {
        try (TestStore store = new TestStore(new ComputeNodeContext().requirePass("pw"));
            RawResp resp = new RawResp(store.port()))
        {
            assertEquals("-EXECABORT Transaction discarded because of: NOAUTH Authentication required.",
                resp.call("EXEC"));
            assertEquals("-NOAUTH Authentication required.", resp.call("MULTI"));
            assertEquals("-NOAUTH Authentication required.", resp.call("WATCH", "k"));
            assertEquals("+OK", resp.call("AUTH", "pw"));
            assertEquals("+OK", resp.call("MULTI"));
            assertEquals("+QUEUED", resp.call("AUTH", "wrong"));
            assertEquals("+QUEUED", resp.call("AUTH", "pw"));
            assertEquals("*2[-WRONGPASS invalid username-password pair or user is disabled., +OK]",
                resp.call("EXEC"));
        }
    }

    /** Jedis's own transaction API (pipelined MULTI ... EXEC) and WATCH, unchanged. */
    @Test
    void jedisTransactionsAndWatch()
    {
        try (Jedis jedis = new Jedis("127.0.0.1", SERVERS.store().port());
            Jedis other = new Jedis("127.0.0.1", SERVERS.store().port()))
        {
            jedis.del("k", "k2");
            final Transaction tx = jedis.multi();
            tx.set("k", "1");
            tx.incrBy("k", 4);
            tx.mset("k2", "a", "k2", "b");
            tx.mget("k", "k2");
            final List<Object> replies = tx.exec();
            assertEquals(List.of("OK", 5L, "OK", List.of("5", "b")), replies);

            jedis.watch("k");
            other.set("k", "changed");
            final Transaction failed = jedis.multi();
            failed.set("k2", "never");
            assertNull(failed.exec(), "a watched key changed: EXEC answers nil");
            assertEquals("b", other.get("k2"));
        }
    }

    private static String run(final int port, final String... steps) throws Exception
    {
        try (Connections connections = new Connections(port))
        {
            connections.clear();
            String last = null;
            for (final String step : steps)
            {
                final String[] words = step.split(" ");
                final boolean other = words[0].equals("b");
                last = connections.on(other ? "b" : "a")
                    .call(other ? java.util.Arrays.copyOfRange(words, 1, words.length) : words);
            }
            return last;
        }
    }

    private static List<String> pipelined(final int port, final String[][] requests) throws IOException
    {
        try (RawResp resp = new RawResp(port))
        {
            for (final String key : KEYS)
            {
                resp.call("DEL", key);
            }
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (final String[] request : requests)
            {
                bytes.writeBytes(("*" + request.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                for (final String arg : request)
                {
                    bytes.writeBytes(("$" + arg.length() + "\r\n" + arg + "\r\n").getBytes(StandardCharsets.UTF_8));
                }
            }
            resp.sendRaw(bytes.toByteArray());
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.length; i++)
            {
                replies.add(resp.read());
            }
            return replies;
        }
    }

    /** The connections of one server, by name, opened at their first step. */
    private static final class Connections implements AutoCloseable
    {
        private final int port;
        private final Map<String, RawResp> open = new HashMap<>();

        Connections(final int port)
        {
            this.port = port;
        }

        RawResp on(final String name) throws IOException
        {
            RawResp resp = open.get(name);
            if (resp == null)
            {
                resp = new RawResp(port);
                open.put(name, resp);
            }
            return resp;
        }

        void clear() throws IOException
        {
            final String[] del = new String[KEYS.length + 1];
            del[0] = "DEL";
            System.arraycopy(KEYS, 0, del, 1, KEYS.length);
            assertTrue(on("clear").call(del).startsWith(":"));
        }

        public void close() throws IOException
        {
            for (final RawResp resp : open.values())
            {
                resp.close();
            }
        }
    }
}
