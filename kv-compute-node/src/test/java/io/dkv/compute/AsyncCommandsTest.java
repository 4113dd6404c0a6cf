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
    void everyGetSetIncrementMsetAndDelGoesOutAsAStepAndOthersRunAsBefore() throws Exception
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
            // not steps: a SET with an option, MULTI's commands, which EXEC runs in its transaction
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
            assertEquals(16 + 16 + 3 + 1, resp.asyncSteps() - before,
                "each GET, plain SET, INCRBY, MSET and DEL outside MULTI is a step");
        }
    }

    @Test
    void aGetIncrOrSetMeetingAHashAnswersAsItWouldAlone() throws Exception
    {
        try (RawResp resp = new RawResp(store.port()))
        {
            resp.call("DEL", "as-hash");
            assertEquals(":1", resp.call("HSET", "as-hash", "f", "v"));
            resp.sendRaw(RawResp.encodeAll(List.of(new String[] {"GET", "as-hash"}, new String[] {"INCR", "as-hash"},
                new String[] {"SET", "as-hash", "s"}, new String[] {"GET", "as-hash"},
                new String[] {"TYPE", "as-hash"})));
            assertTrue(resp.read().startsWith("-WRONGTYPE"), "GET of a hash");
            assertTrue(resp.read().startsWith("-WRONGTYPE"), "INCR of a hash");
            assertEquals("+OK", resp.read(), "SET replaces a hash");
            assertEquals("$s", resp.read());
            assertEquals("+string", resp.read());
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
     * thread, a WRONGTYPE included. A command of several keys (SMOVE) still does.
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

            assertEquals(":1", resp.call("SMOVE", "rc-s", "rc-s2", "y"));
            assertEquals(1, resp.storeThreadSteps() - before, "SMOVE on a store thread");
        }
    }

    private static String bulk(final String value)
    {
        return value == null ? "$nil" : "$" + value;
    }
}
