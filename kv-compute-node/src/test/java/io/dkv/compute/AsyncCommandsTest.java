package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With asynchronous commands on, a GET, a plain SET or an INCR, DECR, INCRBY or DECRBY sends its store operations
 * out and the connection goes on with the next such requests of other keys while they travel; every reply still
 * comes in the requests' order, as if each request ran alone to its end, whatever else the pipeline holds and
 * whichever keys repeat. Checked against a model of a string keyspace over seeded random pipelines, sent in one write
 * each so that they arrive together.
 */
class AsyncCommandsTest
{
    private static final String[] KEYS = {"as-a", "as-b", "as-c", "as-d", "as-e"};
    private static TestStore store;

    @BeforeAll
    static void startStore()
    {
        store = new TestStore(new ComputeNodeContext().asyncCommands("on"));
    }

    @AfterAll
    static void stopStore()
    {
        CloseHelper.close(store);
    }

    @Test
    void pipelinesOfGetsSetsAndOtherCommandsAreAnsweredInOrderAsIfEachRanAlone() throws Exception
    {
        final Random random = new Random(39_001);
        final Map<String, String> model = new HashMap<>();
        try (RawResp resp = new RawResp(store.port()))
        {
            for (final String key : KEYS)
            {
                resp.call("DEL", key);
            }
            for (int pipeline = 0; pipeline < 200; pipeline++)
            {
                final List<String[]> requests = new ArrayList<>();
                final List<String> expected = new ArrayList<>();
                final int length = 1 + random.nextInt(40);
                for (int i = 0; i < length; i++)
                {
                    final String key = KEYS[random.nextInt(KEYS.length)];
                    final int kind = random.nextInt(100);
                    if (kind < 40)
                    {
                        final String value = random.nextBoolean() ? "v" + random.nextInt(1000) :
                            Integer.toString(random.nextInt(1000) - 500);
                        requests.add(new String[] {"SET", key, value});
                        model.put(key, value);
                        expected.add("+OK");
                    }
                    else if (kind < 52)
                    {
                        final long by = random.nextInt(21) - 10;
                        final String[] request = switch (random.nextInt(4))
                        {
                            case 0 -> new String[] {"INCR", key};
                            case 1 -> new String[] {"DECR", key};
                            case 2 -> new String[] {"INCRBY", key, Long.toString(by)};
                            default -> new String[] {"DECRBY", key, Long.toString(by)};
                        };
                        final long delta = switch (request[0])
                        {
                            case "INCR" -> 1;
                            case "DECR" -> -1;
                            case "INCRBY" -> by;
                            default -> -by;
                        };
                        requests.add(request);
                        final String now = model.get(key);
                        if (now != null && !now.matches("-?[0-9]+"))
                        {
                            expected.add("-ERR value is not an integer or out of range");
                        }
                        else
                        {
                            final long sum = (now == null ? 0 : Long.parseLong(now)) + delta;
                            model.put(key, Long.toString(sum));
                            expected.add(":" + sum);
                        }
                    }
                    else if (kind < 75)
                    {
                        requests.add(new String[] {"GET", key});
                        expected.add(model.containsKey(key) ? "$" + model.get(key) : "$nil");
                    }
                    else if (kind < 80)
                    {
                        final String other = KEYS[random.nextInt(KEYS.length)];
                        final String value = "m" + random.nextInt(1000);
                        requests.add(new String[] {"MSET", key, value, other, value + "o"});
                        model.put(key, value);
                        model.put(other, value + "o");
                        expected.add("+OK");
                    }
                    else if (kind < 87)
                    {
                        requests.add(new String[] {"DEL", key});
                        expected.add(model.remove(key) != null ? ":1" : ":0");
                    }
                    else if (kind < 94)
                    {
                        requests.add(new String[] {"APPEND", key, "x"});
                        final String now = model.getOrDefault(key, "") + "x";
                        model.put(key, now);
                        expected.add(":" + now.length());
                    }
                    else
                    {
                        final String other = KEYS[random.nextInt(KEYS.length)];
                        requests.add(new String[] {"MGET", key, other});
                        expected.add("*2[" + bulk(model.get(key)) + ", " + bulk(model.get(other)) + "]");
                    }
                }
                resp.sendRaw(RawResp.encodeAll(requests));
                final List<String> replies = new ArrayList<>();
                for (int i = 0; i < requests.size(); i++)
                {
                    replies.add(resp.read());
                }
                assertEquals(expected, replies, "pipeline " + pipeline);
            }
        }
    }

    @Test
    void everyGetSetIncrementMsetAndDelGoesOutAsAStepAndMultisCommandsDoNot() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            final long before = resp.asyncSteps();
            final List<String[]> requests = new ArrayList<>();
            for (int i = 0; i < 16; i++)
            {
                requests.add(new String[] {"SET", "as-step-" + i, Integer.toString(i)});
            }
            for (int i = 0; i < 16; i++)
            {
                requests.add(new String[] {"GET", "as-step-" + i});
            }
            requests.add(new String[] {"INCRBY", "as-step-2", "40"});
            requests.add(new String[] {"MSET", "as-step-3", "a", "as-step-4", "b"});
            requests.add(new String[] {"DEL", "as-step-3", "as-step-4", "as-step-none"});
            // steps replayed: a SET with a condition, EXEC; not steps: MULTI's commands, which EXEC runs in its
            // transaction
            requests.add(new String[] {"SET", "as-step-0", "x", "XX"});
            requests.add(new String[] {"MULTI"});
            requests.add(new String[] {"SET", "as-step-1", "y"});
            requests.add(new String[] {"GET", "as-step-1"});
            requests.add(new String[] {"EXEC"});
            requests.add(new String[] {"GET", "as-step-0"});
            resp.sendRaw(RawResp.encodeAll(requests));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++)
            {
                replies.add(resp.read());
            }
            for (int i = 0; i < 16; i++)
            {
                assertEquals("+OK", replies.get(i));
                assertEquals("$" + i, replies.get(16 + i));
            }
            assertEquals(List.of(":42", "+OK", ":2", "+OK", "+OK", "+QUEUED", "+QUEUED", "*2[+OK, $y]", "$x"),
                replies.subList(32, replies.size()));
            assertEquals(16 + 16 + 3 + 1 + 1 + 1, resp.asyncSteps() - before,
                "each GET, SET, INCRBY, MSET, DEL and EXEC outside MULTI is a step");
        }
    }

    @Test
    void aGetIncrOrSetMeetingAHashAnswersAsItWouldAlone() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "as-hash");
            assertEquals(":1", resp.call("HSET", "as-hash", "f", "v"));
            final long storeThreads = resp.storeThreadSteps();
            resp.sendRaw(RawResp.encodeAll(List.of(new String[] {"GET", "as-hash"}, new String[] {"INCR", "as-hash"},
                new String[] {"SET", "as-hash", "s"}, new String[] {"GET", "as-hash"},
                new String[] {"TYPE", "as-hash"})));
            assertTrue(resp.read().startsWith("-WRONGTYPE"), "GET of a hash");
            assertTrue(resp.read().startsWith("-WRONGTYPE"), "INCR of a hash");
            assertEquals("+OK", resp.read(), "SET replaces a hash");
            assertEquals("$s", resp.read());
            assertEquals("+string", resp.read());
            assertEquals(1, resp.storeThreadSteps() - storeThreads, "the hash replaced on a store thread");
        }
    }

    /**
     * An MSET over keys that hold strings or nothing is one client transaction carried by completions (its keys read
     * at once, then its intents swapped in at once where each key held a value): no store thread takes it. One over a
     * hash, whose fields go with it, runs on a store thread as before, and replaces the hash as redis does.
     */
    @Test
    void anMsetOfStringsGoesToNoStoreThreadAndOneOverAHashReplacesIt() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "ms-a", "ms-b", "ms-new", "ms-hash");
            assertEquals("+OK", resp.call("MSET", "ms-a", "1", "ms-b", "2"));
            final long before = resp.storeThreadSteps();
            final List<String[]> requests = new ArrayList<>();
            for (int i = 0; i < 20; i++)
            {
                requests.add(new String[] {"MSET", "ms-a", "a" + i, "ms-b", "b" + i});
            }
            requests.add(new String[] {"MSET", "ms-a", "x", "ms-new", "y", "ms-a", "z"});
            requests.add(new String[] {"MGET", "ms-a", "ms-b", "ms-new"});
            resp.sendRaw(RawResp.encodeAll(requests));
            for (int i = 0; i < 21; i++)
            {
                assertEquals("+OK", resp.read());
            }
            assertEquals("*3[$z, $b19, $y]", resp.read(), "the last value of a key given twice wins");
            assertEquals(0, resp.storeThreadSteps() - before, "MSETs of strings carried by completions");

            assertEquals(":1", resp.call("HSET", "ms-hash", "f", "v"));
            final long beforeHash = resp.storeThreadSteps();
            assertEquals("+OK", resp.call("MSET", "ms-hash", "s", "ms-a", "h"));
            assertEquals(1, resp.storeThreadSteps() - beforeHash, "an MSET over a hash on a store thread");
            assertEquals("+string", resp.call("TYPE", "ms-hash"));
            assertEquals("*2[$s, $h]", resp.call("MGET", "ms-hash", "ms-a"));
        }
    }

    /**
     * MSETNX, DEL and UNLINK of strings and keys with none are transactions carried by completions (the protocol's
     * commit, round by round, where a key has no value), and a DEL of one string is the client's delete: none goes to
     * a store thread. A DEL that meets a hash goes again, whole, on one; an MSETNX that meets it answers 0 carried.
     */
    @Test
    void anMsetnxAndADelOfStringsGoToNoStoreThreadAndADelOfAHashDoes() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "nx-a", "nx-b", "nx-c", "nx-hash");
            final long before = resp.storeThreadSteps();
            final List<String[]> requests = List.of(
                new String[] {"MSETNX", "nx-a", "1", "nx-b", "2"},
                new String[] {"MSETNX", "nx-a", "3", "nx-c", "4"},
                new String[] {"MGET", "nx-a", "nx-b", "nx-c"},
                new String[] {"DEL", "nx-a", "nx-c", "nx-a"},
                new String[] {"DEL", "nx-b"},
                new String[] {"DEL", "nx-b"},
                new String[] {"UNLINK", "nx-a", "nx-b"},
                new String[] {"MSETNX", "nx-a", "x", "nx-b", "y", "nx-a", "z"},
                new String[] {"MGET", "nx-a", "nx-b"},
                new String[] {"UNLINK", "nx-a", "nx-b", "nx-c"},
                new String[] {"EXISTS", "nx-a", "nx-b"});
            resp.sendRaw(RawResp.encodeAll(requests));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of(":1", ":0", "*3[$1, $2, $nil]", ":1", ":1", ":0", ":0", ":1", "*2[$z, $y]", ":2",
                ":0"), replies, "a key named twice is deleted once and set to its last value");
            assertEquals(0, resp.storeThreadSteps() - before, "carried by completions");

            assertEquals(":1", resp.call("HSET", "nx-hash", "f", "v"));
            final long beforeHash = resp.storeThreadSteps();
            assertEquals(":0", resp.call("MSETNX", "nx-hash", "s", "nx-c", "t"));
            assertEquals(0, resp.storeThreadSteps() - beforeHash, "an MSETNX that meets a hash answers 0 carried");
            assertEquals(":1", resp.call("DEL", "nx-c", "nx-hash"));
            assertEquals(1, resp.storeThreadSteps() - beforeHash, "a DEL over a hash on a store thread");
            assertEquals(":1", resp.call("HSET", "nx-hash", "f", "v"));
            final long beforeOne = resp.storeThreadSteps();
            assertEquals(":1", resp.call("DEL", "nx-hash"));
            assertEquals(1, resp.storeThreadSteps() - beforeOne, "a DEL of one hash on a store thread");
            assertEquals("+none", resp.call("TYPE", "nx-hash"));
        }
    }

    /**
     * The commands of one key of a hash, set, sorted set or list are replayed transactions carried by completions (run
     * on the loop against the reads known so far, again each time they read a key not yet read): none goes to a store
     * thread, a WRONGTYPE included.
     */
    @Test
    void collectionCommandsOfOneKeyGoToNoStoreThread() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "rc-h", "rc-s", "rc-z", "rc-l", "rc-s2");
            final long before = resp.storeThreadSteps();
            final List<String[]> requests = List.of(
                new String[] {"HSET", "rc-h", "a", "1", "b", "2"},
                new String[] {"HINCRBY", "rc-h", "a", "5"},
                new String[] {"HGET", "rc-h", "a"},
                new String[] {"SADD", "rc-s", "x", "y"},
                new String[] {"SREM", "rc-s", "x"},
                new String[] {"SMEMBERS", "rc-s"},
                new String[] {"ZADD", "rc-z", "1", "m", "2", "n"},
                new String[] {"ZRANGE", "rc-z", "0", "-1"},
                new String[] {"LPUSH", "rc-l", "a", "b"},
                new String[] {"LRANGE", "rc-l", "0", "-1"},
                new String[] {"HSET", "rc-s", "f", "v"});
            resp.sendRaw(RawResp.encodeAll(requests));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of(":2", ":6", "$6", ":2", ":1", "*1[$y]", ":2", "*2[$m, $n]", ":2", "*2[$b, $a]"),
                replies.subList(0, 10));
            assertTrue(replies.get(10).startsWith("-WRONGTYPE"), replies.get(10));
            assertEquals(0, resp.storeThreadSteps() - before, "replayed, carried by completions");
        }
    }

    /**
     * The commands of several keys are replayed too, SORT with its BY and GET keys and the *STORE forms included: none
     * goes to a store thread, each answers as it would alone, and the keyspace events a *STORE sends from inside come
     * once each, in the commands' order, after their replies. (LMPOP sends none here: its events are not served.)
     */
    @Test
    void collectionCommandsOfSeveralKeysGoToNoStoreThreadAndTheirEventsComeOnce() throws Exception
    {
        try (RawResp resp = new RawResp(store.port());
            RawResp subscriber = new RawResp(store.port()))
        {
            resp.call("DEL", "mk-a", "mk-b", "mk-c", "mk-z1", "mk-z2", "mk-l", "mk-l2", "mk-st", "mk-w_1", "mk-w_2",
                "mk-w_3", "mk-o_1", "mk-o_2", "mk-o_3");
            assertEquals("+OK", resp.call("CONFIG", "SET", "notify-keyspace-events", "Eszlg"));
            try
            {
                assertEquals("*3[$psubscribe, $__keyevent@0__:*, :1]",
                    subscriber.call("PSUBSCRIBE", "__keyevent@0__:*"));
                assertEquals(":3", resp.call("SADD", "mk-a", "1", "2", "3"));
                assertEquals(":2", resp.call("SADD", "mk-b", "2", "3"));
                assertEquals(":2", resp.call("ZADD", "mk-z1", "1", "m", "2", "n"));
                assertEquals(":1", resp.call("ZADD", "mk-z2", "5", "n"));
                assertEquals(":3", resp.call("RPUSH", "mk-l", "3", "1", "2"));
                assertEquals("+OK", resp.call("MSET", "mk-w_1", "30", "mk-w_2", "10", "mk-w_3", "20", "mk-o_1", "x",
                    "mk-o_2", "y", "mk-o_3", "z"));
                for (int i = 0; i < 5; i++)
                {
                    subscriber.read();
                }
                final long before = resp.storeThreadSteps();
                final List<String[]> requests = List.of(
                    new String[] {"SINTER", "mk-a", "mk-b"},
                    new String[] {"SUNIONSTORE", "mk-c", "mk-a", "mk-b"},
                    new String[] {"SMOVE", "mk-a", "mk-b", "1"},
                    new String[] {"SINTERCARD", "2", "mk-a", "mk-b"},
                    new String[] {"ZUNIONSTORE", "mk-st", "2", "mk-z1", "mk-z2"},
                    new String[] {"ZRANGE", "mk-st", "0", "-1", "WITHSCORES"},
                    new String[] {"LMOVE", "mk-l", "mk-l2", "LEFT", "RIGHT"},
                    new String[] {"LMPOP", "2", "mk-none", "mk-l", "RIGHT"},
                    new String[] {"SORT", "mk-l", "BY", "mk-w_*", "GET", "mk-o_*"},
                    new String[] {"SORT", "mk-l2", "BY", "mk-w_*", "GET", "#", "STORE", "mk-c"},
                    new String[] {"SDIFFSTORE", "mk-c", "mk-none", "mk-a"},
                    new String[] {"SINTER", "mk-a", "mk-l"});
                resp.sendRaw(RawResp.encodeAll(requests));
                final List<String> replies = new ArrayList<>();
                for (int i = 0; i < requests.size(); i++)
                {
                    replies.add(resp.read());
                }
                assertEquals(List.of("*2[$2, $3]", ":3", ":1", ":2", ":2", "*4[$m, $1, $n, $7]", "$3",
                    "*2[$mk-l, *1[$2]]", "*1[$x]", ":1", ":0"), replies.subList(0, 11));
                assertTrue(replies.get(11).startsWith("-WRONGTYPE"), replies.get(11));
                assertEquals(0, resp.storeThreadSteps() - before, "replayed, carried by completions");
                final List<String> events = new ArrayList<>();
                for (int i = 0; i < 8; i++)
                {
                    events.add(subscriber.read());
                }
                assertEquals(List.of(
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:sunionstore, $mk-c]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:srem, $mk-a]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:sadd, $mk-b]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:zunionstore, $mk-st]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:rpush, $mk-l2]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:lpop, $mk-l]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:sortstore, $mk-c]",
                    "*4[$pmessage, $__keyevent@0__:*, $__keyevent@0__:del, $mk-c]"), events);
            }
            finally
            {
                resp.call("CONFIG", "SET", "notify-keyspace-events", "");
            }
        }
    }

    /**
     * The commands of strings and of the keyspace that have no carried form of their own are replayed too: each is a
     * step, none goes to a store thread, and each answers as redis-server 7.0.15 answered the same requests. One that
     * meets a string in pieces (which a transaction does not hold as the command alone does) runs on a store thread,
     * alone, and answers as it would without steps; a GET that meets one reads its header again there.
     */
    @Test
    void stringAndKeyspaceCommandsAreReplayedAndAStringInPiecesRunsAlone() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "sk-a", "sk-b", "sk-c", "sk-d", "sk-e", "sk-f", "sk-big");
            final long steps = resp.asyncSteps();
            final long storeThreads = resp.storeThreadSteps();
            final List<String[]> requests = List.of(
                new String[] {"APPEND", "sk-a", "hello"},
                new String[] {"STRLEN", "sk-a"},
                new String[] {"GETRANGE", "sk-a", "1", "3"},
                new String[] {"SETRANGE", "sk-a", "5", "world"},
                new String[] {"GETSET", "sk-a", "v1"},
                new String[] {"SETNX", "sk-b", "b"},
                new String[] {"SET", "sk-b", "c", "NX"},
                new String[] {"SET", "sk-b", "d", "GET"},
                new String[] {"GETDEL", "sk-b"},
                new String[] {"SET", "sk-c", "10"},
                new String[] {"EXPIRE", "sk-c", "100"},
                new String[] {"PERSIST", "sk-c"},
                new String[] {"INCRBYFLOAT", "sk-c", "1.5"},
                new String[] {"TYPE", "sk-c"},
                new String[] {"EXISTS", "sk-a", "sk-b", "sk-c"},
                new String[] {"RENAME", "sk-c", "sk-d"},
                new String[] {"COPY", "sk-d", "sk-e"},
                new String[] {"MGET", "sk-a", "sk-d", "sk-e", "sk-none"},
                new String[] {"SETBIT", "sk-f", "7", "1"},
                new String[] {"GETBIT", "sk-f", "7"},
                new String[] {"BITCOUNT", "sk-f"},
                new String[] {"LCS", "sk-a", "sk-d"},
                new String[] {"GETEX", "sk-a", "PERSIST"},
                new String[] {"TTL", "sk-d"});
            resp.sendRaw(RawResp.encodeAll(requests));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of(":5", ":5", "$ell", ":10", "$helloworld", ":1", "$nil", "$b", "$d", "+OK", ":1", ":1",
                "$11.5", "+string", ":2", "+OK", ":1", "*4[$v1, $11.5, $11.5, $nil]", ":0", ":1", ":1", "$1", "$v1",
                ":-1"), replies);
            assertEquals(requests.size(), resp.asyncSteps() - steps, "each request a step");
            assertEquals(0, resp.storeThreadSteps() - storeThreads, "replayed, carried by completions");

            final String big = "b".repeat(1_100_000);
            final long beforeSet = resp.storeThreadSteps();
            resp.sendRaw(RawResp.encodeAll(List.of(new String[] {"SET", "sk-big", big}, new String[] {"PING"},
                new String[] {"STRLEN", "sk-big"})));
            assertEquals(List.of("+OK", "+PONG", ":1100000"), List.of(resp.read(), resp.read(), resp.read()));
            assertEquals(2, resp.storeThreadSteps() - beforeSet, "a long argument's SET published there, and STRLEN");
            final long beforeBig = resp.storeThreadSteps();
            assertEquals(":1100001", resp.call("APPEND", "sk-big", "x"));
            assertEquals(":1100001", resp.call("STRLEN", "sk-big"));
            assertEquals("$bx", resp.call("GETRANGE", "sk-big", "-2", "-1"));
            assertEquals(3, resp.storeThreadSteps() - beforeBig, "a string in pieces: each on a store thread, alone");
            final long beforeGet = resp.storeThreadSteps();
            resp.sendRaw(RawResp.encodeAll(List.of(new String[] {"GET", "sk-big"}, new String[] {"PING"})));
            assertEquals("$" + big + "x", resp.read());
            assertEquals("+PONG", resp.read());
            assertEquals(1, resp.storeThreadSteps() - beforeGet, "GET's header read again there, its pieces streamed");
            resp.call("DEL", "sk-big");
        }
    }

    /**
     * The commands that walk the whole keyspace (SCAN, KEYS, DBSIZE, RANDOMKEY, FLUSHALL) run on a store thread, where
     * the scan of every node's index may take its time, and OBJECT's and MEMORY USAGE's reads of their key are
     * replayed: none holds the event loop, and a pipeline of them is answered in order.
     */
    @Test
    void commandsThatWalkTheKeyspaceRunOnAStoreThreadInOrder() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            final long storeThreads = resp.storeThreadSteps();
            final long steps = resp.asyncSteps();
            final List<String[]> requests = List.of(
                new String[] {"SET", "kw-a", "1"},
                new String[] {"SET", "kw-b", "two"},
                new String[] {"KEYS", "kw-*"},
                new String[] {"DBSIZE"},
                new String[] {"RANDOMKEY"},
                new String[] {"OBJECT", "ENCODING", "kw-a"},
                new String[] {"MEMORY", "USAGE", "kw-b"},
                new String[] {"DEL", "kw-a"},
                new String[] {"KEYS", "kw-*"});
            resp.sendRaw(RawResp.encodeAll(requests));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of("+OK", "+OK"), replies.subList(0, 2));
            assertTrue(replies.get(2).equals("*2[$kw-a, $kw-b]") || replies.get(2).equals("*2[$kw-b, $kw-a]"),
                replies.get(2));
            assertTrue(Long.parseLong(replies.get(3).substring(1)) >= 2, replies.get(3));
            assertTrue(replies.get(4).startsWith("$") && !replies.get(4).equals("$nil"), replies.get(4));
            assertEquals("$int", replies.get(5));
            assertTrue(replies.get(6).startsWith(":") && Long.parseLong(replies.get(6).substring(1)) > 0,
                replies.get(6));
            assertEquals(List.of(":1", "*1[$kw-b]"), replies.subList(7, 9));
            assertEquals(4, resp.storeThreadSteps() - storeThreads, "KEYS twice, DBSIZE and RANDOMKEY");
            assertTrue(resp.asyncSteps() - steps >= 6, "each but the SETs and the DEL a step at least");

            final List<String> scanned = new ArrayList<>();
            final long beforeScan = resp.storeThreadSteps();
            String cursor = "0";
            int pages = 0;
            do
            {
                final String page = resp.call("SCAN", cursor, "MATCH", "kw-*", "COUNT", "1000");
                final int comma = page.indexOf(',');
                cursor = page.substring(page.indexOf('$') + 1, comma);
                final String keys = page.substring(comma + 1).trim();
                if (keys.startsWith("*1"))
                {
                    scanned.add(keys.substring(keys.indexOf('$') + 1, keys.indexOf(']')));
                }
                pages++;
            }
            while (!"0".equals(cursor));
            assertEquals(List.of("kw-b"), scanned);
            assertEquals(pages, resp.storeThreadSteps() - beforeScan, "each SCAN on a store thread");

            final long beforeFlush = resp.storeThreadSteps();
            assertEquals(List.of("+OK", ":0", "$nil"), List.of(resp.call("FLUSHALL"), resp.call("DBSIZE"),
                resp.call("RANDOMKEY")));
            assertEquals(3, resp.storeThreadSteps() - beforeFlush);
        }
    }

    /**
     * A blocking command's tries run on store threads: the first as a step that holds back the connection's later
     * requests (a PING behind it is answered after it, whether it took at once, was served by a write or timed out),
     * the second, once it blocked, beside the loop; the round of waiters a push wakes runs there too, the push
     * answered after it; a connection that closes while blocked leaves no waiter to take an element meant for nobody.
     */
    @Test
    void aBlockingCommandsTriesRunOnStoreThreadsAndItsConnectionWaitsInOrder() throws Exception
    {
        try (RawResp waiting = new RawResp(store.port()); RawResp writer = new RawResp(store.port()))
        {
            writer.call("DEL", "bl-q");
            writer.call("RPUSH", "bl-q", "one");
            final long beforeTaken = writer.storeThreadSteps();
            waiting.sendRaw(RawResp.encodeAll(List.of(new String[] {"BLPOP", "bl-q", "0"}, new String[] {"PING"})));
            assertEquals(List.of("*2[$bl-q, $one]", "+PONG"), List.of(waiting.read(), waiting.read()));
            assertEquals(1, writer.storeThreadSteps() - beforeTaken, "the first try, which took at once");

            final long beforeAlone = writer.storeThreadSteps();
            assertEquals(":1", writer.call("RPUSH", "bl-alone", "x"));
            final long pushAlone = writer.storeThreadSteps() - beforeAlone;
            writer.call("DEL", "bl-alone");

            final long beforeBlocked = writer.storeThreadSteps();
            waiting.sendRaw(RawResp.encodeAll(List.of(new String[] {"BLPOP", "bl-q", "0"}, new String[] {"PING"})));
            awaitBlocked(writer, 1);
            assertEquals(2, writer.storeThreadSteps() - beforeBlocked, "the first try, then the second once blocked");
            final long beforeWoken = writer.storeThreadSteps();
            assertEquals(":1", writer.call("RPUSH", "bl-q", "two"));
            // the push is answered after the waiter it woke took its element, as redis answers it
            assertEquals(":0", writer.call("LLEN", "bl-q"));
            assertEquals(pushAlone + 1, writer.storeThreadSteps() - beforeWoken, "the push, and the round it started");
            assertEquals(List.of("*2[$bl-q, $two]", "+PONG"), List.of(waiting.read(), waiting.read()));

            waiting.sendRaw(RawResp.encodeAll(List.of(new String[] {"BLPOP", "bl-q", "0"}, new String[] {"PING"})));
            awaitBlocked(writer, 1);
            final long beforeExec = writer.storeThreadSteps();
            assertEquals("+OK", writer.call("MULTI"));
            assertEquals("+QUEUED", writer.call("RPUSH", "bl-q", "three"));
            assertEquals("*1[:1]", writer.call("EXEC"));
            assertEquals(":0", writer.call("LLEN", "bl-q"), "EXEC answered after the waiter it woke took its element");
            assertEquals(1, writer.storeThreadSteps() - beforeExec, "EXEC replayed, its round on one");
            assertEquals(List.of("*2[$bl-q, $three]", "+PONG"), List.of(waiting.read(), waiting.read()));

            waiting.sendRaw(RawResp.encodeAll(List.of(new String[] {"BLPOP", "bl-q", "0.05"}, new String[] {"PING"})));
            assertEquals(List.of("*nil", "+PONG"), List.of(waiting.read(), waiting.read()));
        }
        try (RawResp writer = new RawResp(store.port()))
        {
            try (RawResp gone = new RawResp(store.port()))
            {
                gone.sendRaw(RawResp.encodeAll(List.<String[]>of(new String[] {"BLPOP", "bl-q", "0"})));
                awaitBlocked(writer, 1);
            }
            awaitBlocked(writer, 0);
            assertEquals(":1", writer.call("RPUSH", "bl-q", "kept"));
            assertEquals(":1", writer.call("LLEN", "bl-q"), "no waiter of a closed connection took it");
            writer.call("DEL", "bl-q");
        }
    }

    /** Wait until the node has this many connections blocked (INFO's blocked_clients). */
    private static void awaitBlocked(final RawResp resp, final int blocked) throws Exception
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        String info = "";
        while (System.nanoTime() - deadline < 0)
        {
            info = resp.call("INFO", "clients");
            if (info.contains("blocked_clients:" + blocked + "\r\n"))
            {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("blocked_clients never came to " + blocked + ": " + info);
    }

    /**
     * Replayed commands of several connections on one key are each one transaction: INCRBYFLOAT and APPEND sent
     * pipelined by four connections at once lose no update, and of their SETNXs of one key exactly one sets it.
     */
    @Test
    void replayedCommandsOfManyConnectionsOnOneKeyLoseNoUpdate() throws Exception
    {
        final int connections = 4;
        final int each = 25;
        try (RawResp setup = new RawResp(store.port()))
        {
            setup.call("DEL", "hot-f", "hot-s", "hot-nx");
        }
        final List<List<String>> replies = pipelinedAtOnce(connections, connection ->
        {
            final List<String[]> requests = new ArrayList<>();
            for (int i = 0; i < each; i++)
            {
                requests.add(new String[] {"INCRBYFLOAT", "hot-f", "1"});
                requests.add(new String[] {"APPEND", "hot-s", "x"});
                requests.add(new String[] {"SETNX", "hot-nx", Integer.toString(connection)});
            }
            return requests;
        });
        final long[] setNx = new long[connections];
        for (int connection = 0; connection < connections; connection++)
        {
            for (int i = 2; i < replies.get(connection).size(); i += 3)
            {
                setNx[connection] += replies.get(connection).get(i).equals(":1") ? 1 : 0;
            }
        }
        try (RawResp resp = new RawResp(store.port()))
        {
            assertEquals("$" + connections * each, resp.call("GET", "hot-f"));
            assertEquals(":" + connections * each, resp.call("STRLEN", "hot-s"));
            assertEquals(1, java.util.Arrays.stream(setNx).sum(), "one SETNX set the key");
        }
    }

    /**
     * EXEC of commands whose only effects are on the store is a replayed transaction, a step of its own (WATCH's reads
     * are one too): WATCH's check,
     * the replies and the keyspace events as EXEC's on the loop, on no store thread; the transactions of four
     * connections at once, each incrementing two keys, lose no update and leave the keys equal. An EXEC with a command
     * of other effects (FLUSHALL's) runs on the loop as before, and is no step.
     */
    @Test
    void anExecOfStoreCommandsIsAReplayedStep() throws Exception
    {
        try (RawResp resp = new RawResp(store.port());
            RawResp other = new RawResp(store.port()))
        {
            resp.call("DEL", "ex-a", "ex-b", "ex-h", "ex-w");
            final long steps = resp.asyncSteps();
            final long storeThreads = resp.storeThreadSteps();
            resp.sendRaw(RawResp.encodeAll(List.of(
                new String[] {"MULTI"},
                new String[] {"SET", "ex-a", "1"},
                new String[] {"INCR", "ex-a"},
                new String[] {"HSET", "ex-h", "f", "v"},
                new String[] {"MSET", "ex-b", "x", "ex-w", "y"},
                new String[] {"GET", "ex-b"},
                new String[] {"SINTER", "ex-h", "ex-none"},
                new String[] {"EXEC"},
                new String[] {"GET", "ex-a"})));
            final List<String> replies = new ArrayList<>();
            for (int i = 0; i < 9; i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of("+OK", "+QUEUED", "+QUEUED", "+QUEUED", "+QUEUED", "+QUEUED", "+QUEUED"),
                replies.subList(0, 7));
            assertTrue(replies.get(7).startsWith("*6[+OK, :2, :1, +OK, $x, -WRONGTYPE"), replies.get(7));
            assertEquals("$2", replies.get(8));
            assertEquals(2, resp.asyncSteps() - steps, "EXEC and the GET after it");
            assertEquals(0, resp.storeThreadSteps() - storeThreads);

            final long beforeWatch = resp.asyncSteps();
            assertEquals("+OK", resp.call("WATCH", "ex-w", "ex-a"));
            assertEquals(1, resp.asyncSteps() - beforeWatch, "WATCH's reads are a step carried by completions");
            assertEquals("+OK", other.call("SET", "ex-w", "changed"));
            assertEquals("+OK", resp.call("MULTI"));
            assertEquals("+QUEUED", resp.call("SET", "ex-a", "lost"));
            assertEquals("*nil", resp.call("EXEC"), "a watched key changed: nil, nothing written");
            assertEquals("$2", resp.call("GET", "ex-a"));

            final long beforeWalk = resp.asyncSteps();
            final long walkThreads = resp.storeThreadSteps();
            assertEquals("+OK", resp.call("MULTI"));
            assertEquals("+QUEUED", resp.call("SET", "ex-a", "3"));
            assertEquals("+QUEUED", resp.call("DBSIZE"));
            assertEquals("+QUEUED", resp.call("EVAL", "return redis.call('GET', KEYS[1])", "1", "ex-a"));
            assertTrue(resp.call("EXEC").matches("\\*3\\[\\+OK, :[0-9]+, \\$3]"));
            assertEquals(1, resp.asyncSteps() - beforeWalk, "an EXEC with DBSIZE and a script is a step");
            assertEquals(1, resp.storeThreadSteps() - walkThreads, "on a store thread: no replayed form");

            final long beforeClient = resp.asyncSteps();
            final long clientThreads = resp.storeThreadSteps();
            assertEquals("+OK", resp.call("MULTI"));
            assertEquals("+QUEUED", resp.call("SET", "ex-a", "4"));
            assertEquals("+QUEUED", resp.call("CLIENT", "SETNAME", "exec-of-the-connection"));
            assertEquals("+QUEUED", resp.call("HELLO", "3"));
            assertEquals("+QUEUED", resp.call("INCR", "ex-a"));
            assertEquals("+QUEUED", resp.call("CLIENT", "GETNAME"));
            assertEquals("+QUEUED", resp.call("CONFIG", "SET", "busy-reply-threshold", "4999"));
            assertEquals("+QUEUED", resp.call("CONFIG", "GET", "busy-reply-threshold"));
            final String exec = resp.call("EXEC");
            assertTrue(exec.startsWith("*7[+OK, +OK, %"), exec);
            assertTrue(exec.endsWith(":5, $exec-of-the-connection, +OK, %1[$busy-reply-threshold, $4999]]"), exec);
            assertEquals(1, resp.asyncSteps() - beforeClient, "an EXEC that touches its connection is a step");
            assertEquals(1, resp.storeThreadSteps() - clientThreads, "on a store thread, its commands on the loop");
            assertEquals("$exec-of-the-connection", resp.call("CLIENT", "GETNAME"));
            assertEquals("+OK", resp.call("CONFIG", "SET", "busy-reply-threshold", "5000"));
        }
        final int connections = 4;
        final int each = 25;
        final List<List<String>> replies = pipelinedAtOnce(connections, connection ->
        {
            final List<String[]> requests = new ArrayList<>();
            for (int i = 0; i < each; i++)
            {
                requests.add(new String[] {"MULTI"});
                requests.add(new String[] {"INCR", "ex-c1"});
                requests.add(new String[] {"INCR", "ex-c2"});
                requests.add(new String[] {"EXEC"});
            }
            return requests;
        });
        for (final List<String> connectionReplies : replies)
        {
            for (int i = 3; i < connectionReplies.size(); i += 4)
            {
                assertTrue(connectionReplies.get(i).startsWith("*2[:"), "EXEC answered " + connectionReplies.get(i));
            }
        }
        try (RawResp resp = new RawResp(store.port()))
        {
            assertEquals("*2[$" + connections * each + ", $" + connections * each + "]",
                resp.call("MGET", "ex-c1", "ex-c2"));
            resp.call("DEL", "ex-c1", "ex-c2");
        }
    }

    /**
     * Send each connection's pipeline in one write, all connections at once, each on a thread of its own.
     *
     * @return each connection's replies, in its requests' order.
     */
    private static List<List<String>> pipelinedAtOnce(final int connections,
        final java.util.function.IntFunction<List<String[]>> requestsOf) throws Exception
    {
        final List<List<String>> replies = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        final Exception[] failed = new Exception[1];
        for (int c = 0; c < connections; c++)
        {
            final List<String> own = java.util.Collections.synchronizedList(new ArrayList<>());
            replies.add(own);
            final List<String[]> requests = requestsOf.apply(c);
            threads.add(Thread.ofPlatform().start(() ->
            {
                try (RawResp resp = new RawResp(store.port()))
                {
                    resp.sendRaw(RawResp.encodeAll(requests));
                    for (int i = 0; i < requests.size(); i++)
                    {
                        own.add(resp.read());
                    }
                }
                catch (final Exception ex)
                {
                    failed[0] = ex;
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(null, failed[0]);
        return replies;
    }

    private static String bulk(final String value)
    {
        return value == null ? "$nil" : "$" + value;
    }
}
