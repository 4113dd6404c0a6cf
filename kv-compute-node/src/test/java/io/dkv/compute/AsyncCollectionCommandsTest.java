package io.dkv.compute;

import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With asynchronous commands on, the commands of hashes, lists, sets and sorted sets run as steps (replayed):
 * a connection's one-key commands on different keys travel together, a command on a key waits for the steps on it,
 * and a command of several keys (SMOVE) waits for every step before it and holds back every request after it. Each
 * reply still comes in the requests' order, as if each request ran alone to its end, a WRONGTYPE included. Checked
 * against a model keyspace over seeded random pipelines of the four types on keys they share, sent in one write each.
 * With them off, only the requests whose work grows with the data (LRANGE 0 -1, ZRANGE 0 -1, SORT, the *STORE
 * commands) run as steps, on a store thread, between others run on the loop: the same replies in the same order.
 */
class AsyncCollectionCommandsTest
{
    private static final String[] KEYS = {"ac-a", "ac-b", "ac-c", "ac-d", "ac-e", "ac-f"};
    private static final String WRONGTYPE = "-WRONGTYPE";
    private static final Set<String> UNBOUNDED = Set.of("LRANGE", "ZRANGE", "SORT", "SUNIONSTORE", "SINTERSTORE");
    private static TestStore asyncOn;
    private static TestStore asyncOff;

    @BeforeAll
    static void startStores()
    {
        asyncOn = new TestStore(new ComputeNodeContext().asyncCommands("on"));
        asyncOff = new TestStore(new ComputeNodeContext().asyncCommands("off"));
    }

    @AfterAll
    static void stopStores()
    {
        CloseHelper.closeAll(asyncOn, asyncOff);
    }

    @ParameterizedTest(name = "async commands {0}")
    @ValueSource(strings = {"on", "off"})
    void pipelinesOfHashListSetAndSortedSetCommandsAreAnsweredInOrderAsIfEachRanAlone(final String async)
        throws Exception
    {
        final boolean on = "on".equals(async);
        final Random random = new Random(39_002);
        final Model model = new Model();
        try (RawResp resp = new RawResp((on ? asyncOn : asyncOff).port()))
        {
            for (final String key : KEYS)
            {
                resp.call("DEL", key);
            }
            final long before = resp.asyncSteps();
            long stepped = 0;
            for (int pipeline = 0; pipeline < 150; pipeline++)
            {
                final List<String[]> requests = new ArrayList<>();
                final List<String> expected = new ArrayList<>();
                final int length = 1 + random.nextInt(40);
                for (int i = 0; i < length; i++)
                {
                    final String[] request = model.randomRequest(random);
                    requests.add(request);
                    expected.add(model.apply(request));
                    stepped += on || UNBOUNDED.contains(request[0]) ? 1 : 0;
                }
                resp.sendRaw(RawResp.encodeAll(requests));
                final List<String> replies = new ArrayList<>();
                for (int i = 0; i < requests.size(); i++)
                {
                    final String reply = resp.read();
                    replies.add(reply.startsWith(WRONGTYPE) ? WRONGTYPE : reply);
                }
                assertEquals(expected, replies, "pipeline " + pipeline + ": " + requests.stream()
                    .map(request -> String.join(" ", request)).collect(Collectors.joining(" ")));
            }
            assertEquals(stepped, resp.asyncSteps() - before, on ?
                "each request is a step, TYPE and a WRONGTYPE one included" : "each unbounded request is a step");
        }
    }

    private static final class Model
    {
        private final Map<String, Object> keys = new HashMap<>();

        String[] randomRequest(final Random random)
        {
            final String key = KEYS[random.nextInt(KEYS.length)];
            final String field = "f" + random.nextInt(4);
            final String score = Integer.toString(random.nextInt(10));
            return switch (random.nextInt(25))
            {
                case 0 -> new String[] {"HSET", key, field, "v" + random.nextInt(100)};
                case 1 -> new String[] {"HGET", key, field};
                case 2 -> new String[] {"HDEL", key, field};
                case 3 -> new String[] {"HLEN", key};
                case 4 -> new String[] {"HINCRBY", key, field, Integer.toString(random.nextInt(7) - 3)};
                case 5 -> new String[] {"LPUSH", key, field};
                case 6 -> new String[] {"RPUSH", key, field, field + "x"};
                case 7 -> new String[] {"LPOP", key};
                case 8 -> new String[] {"RPOP", key};
                case 9 -> new String[] {"LRANGE", key, "0", "-1"};
                case 10 -> new String[] {"SADD", key, field};
                case 11 -> new String[] {"SREM", key, field};
                case 12 -> new String[] {"SCARD", key};
                case 13 -> new String[] {"SISMEMBER", key, field};
                case 14 -> new String[] {"SMOVE", key, KEYS[random.nextInt(KEYS.length)], field};
                case 15 -> new String[] {"ZADD", key, score, field};
                case 16 -> new String[] {"ZSCORE", key, field};
                case 17 -> new String[] {"ZPOPMIN", key};
                case 18 -> new String[] {"ZRANGE", key, "0", "-1"};
                case 19 -> new String[] {"ZCARD", key};
                case 20 -> new String[] {"DEL", key};
                case 21 -> new String[] {"SUNIONSTORE", key, KEYS[random.nextInt(KEYS.length)],
                    KEYS[random.nextInt(KEYS.length)]};
                case 22 -> new String[] {"SINTERSTORE", key, KEYS[random.nextInt(KEYS.length)],
                    KEYS[random.nextInt(KEYS.length)]};
                case 23 -> new String[] {"SORT", key, "ALPHA"};
                default -> new String[] {"TYPE", key};
            };
        }

        @SuppressWarnings("unchecked")
        String apply(final String[] request)
        {
            final String key = request[1];
            final Object value = keys.get(key);
            final String type = typeOf(value);
            final String wants = switch (request[0].charAt(0))
            {
                case 'H' -> "hash";
                case 'L', 'R' -> "list";
                case 'S' -> "set";
                case 'Z' -> "zset";
                default -> type;
            };
            if (request[0].endsWith("STORE"))
            {
                return store(request);
            }
            if (request[0].equals("SORT"))
            {
                if (value instanceof Map && !(value instanceof ZSet))
                {
                    return WRONGTYPE;
                }
                final List<String> elements = value == null ? List.of() : value instanceof ZSet zset ?
                    List.copyOf(zset.keySet()) : List.copyOf((java.util.Collection<String>)value);
                return array(elements.stream().sorted().toList());
            }
            if (request[0].equals("SMOVE") && value == null)
            {
                // redis answers a missing source before it looks at the destination's type
                return ":0";
            }
            if (value != null && !wants.equals(type))
            {
                return WRONGTYPE;
            }
            if (request[0].equals("SMOVE") && keys.get(request[2]) != null && !(keys.get(request[2]) instanceof Set))
            {
                return WRONGTYPE;
            }
            final String reply = switch (request[0])
            {
                case "DEL" -> keys.remove(key) != null ? ":1" : ":0";
                case "TYPE" -> "+" + type;
                case "HSET" -> ":" + (hash(key).put(request[2], request[3]) == null ? 1 : 0);
                case "HGET" -> bulk(value == null ? null : ((Map<String, String>)value).get(request[2]));
                case "HDEL" -> ":" + (value != null && ((Map<String, String>)value).remove(request[2]) != null ? 1 : 0);
                case "HLEN" -> ":" + (value == null ? 0 : ((Map<String, String>)value).size());
                case "HINCRBY" ->
                {
                    final Map<String, String> hash = hash(key);
                    final String now = hash.get(request[2]);
                    if (now != null && !now.matches("-?[0-9]+"))
                    {
                        yield "-ERR hash value is not an integer";
                    }
                    final long sum = (now == null ? 0 : Long.parseLong(now)) + Long.parseLong(request[3]);
                    hash.put(request[2], Long.toString(sum));
                    yield ":" + sum;
                }
                case "LPUSH" ->
                {
                    list(key).addFirst(request[2]);
                    yield ":" + list(key).size();
                }
                case "RPUSH" ->
                {
                    list(key).addLast(request[2]);
                    list(key).addLast(request[3]);
                    yield ":" + list(key).size();
                }
                case "LPOP" -> bulk(value == null ? null : ((Deque<String>)value).pollFirst());
                case "RPOP" -> bulk(value == null ? null : ((Deque<String>)value).pollLast());
                case "LRANGE" -> array(value == null ? List.of() : List.copyOf((Deque<String>)value));
                case "SADD" -> ":" + (set(key).add(request[2]) ? 1 : 0);
                case "SREM" -> ":" + (value != null && ((Set<String>)value).remove(request[2]) ? 1 : 0);
                case "SCARD" -> ":" + (value == null ? 0 : ((Set<String>)value).size());
                case "SISMEMBER" -> ":" + (value != null && ((Set<String>)value).contains(request[2]) ? 1 : 0);
                case "SMOVE" ->
                {
                    if (!((Set<String>)value).contains(request[3]))
                    {
                        yield ":0";
                    }
                    if (!key.equals(request[2]))
                    {
                        ((Set<String>)value).remove(request[3]);
                        set(request[2]).add(request[3]);
                    }
                    yield ":1";
                }
                case "ZADD" -> ":" + (zset(key).put(request[3], Integer.parseInt(request[2])) == null ? 1 : 0);
                case "ZSCORE" -> bulk(value == null ? null : string(((Map<String, Integer>)value).get(request[2])));
                case "ZPOPMIN" ->
                {
                    final List<String> order = value == null ? List.of() : ranked((Map<String, Integer>)value);
                    if (order.isEmpty())
                    {
                        yield "*0[]";
                    }
                    final Integer popped = ((Map<String, Integer>)value).remove(order.get(0));
                    yield "*2[$" + order.get(0) + ", $" + popped + "]";
                }
                case "ZRANGE" -> array(value == null ? List.of() : ranked((Map<String, Integer>)value));
                case "ZCARD" -> ":" + (value == null ? 0 : ((Map<String, Integer>)value).size());
                default -> throw new AssertionError("no model for " + request[0]);
            };
            keys.values().removeIf(Model::empty);
            return reply;
        }

        /** SUNIONSTORE and SINTERSTORE: the sources' types checked, the destination replaced whatever it held. */
        @SuppressWarnings("unchecked")
        private String store(final String[] request)
        {
            final List<Set<String>> sources = new ArrayList<>();
            for (int i = 2; i < request.length; i++)
            {
                final Object source = keys.get(request[i]);
                if (source != null && !(source instanceof Set))
                {
                    return WRONGTYPE;
                }
                sources.add(source == null ? Set.of() : (Set<String>)source);
            }
            final Set<String> result = new HashSet<>(sources.get(0));
            for (final Set<String> source : sources.subList(1, sources.size()))
            {
                if (request[0].equals("SUNIONSTORE"))
                {
                    result.addAll(source);
                }
                else
                {
                    result.retainAll(source);
                }
            }
            keys.remove(request[1]);
            if (!result.isEmpty())
            {
                keys.put(request[1], result);
            }
            return ":" + result.size();
        }

        private static boolean empty(final Object value)
        {
            return value instanceof Map<?, ?> map ? map.isEmpty() : value instanceof Deque<?> list ? list.isEmpty() :
                ((Set<?>)value).isEmpty();
        }

        private static String typeOf(final Object value)
        {
            if (value == null)
            {
                return "none";
            }
            if (value instanceof ZSet)
            {
                return "zset";
            }
            return value instanceof Map ? "hash" : value instanceof Deque ? "list" : "set";
        }

        @SuppressWarnings("unchecked")
        private Map<String, String> hash(final String key)
        {
            return (Map<String, String>)keys.computeIfAbsent(key, k -> new HashMap<String, String>());
        }

        @SuppressWarnings("unchecked")
        private Deque<String> list(final String key)
        {
            return (Deque<String>)keys.computeIfAbsent(key, k -> new ArrayDeque<String>());
        }

        @SuppressWarnings("unchecked")
        private Set<String> set(final String key)
        {
            return (Set<String>)keys.computeIfAbsent(key, k -> new HashSet<String>());
        }

        private ZSet zset(final String key)
        {
            return (ZSet)keys.computeIfAbsent(key, k -> new ZSet());
        }

        private static List<String> ranked(final Map<String, Integer> zset)
        {
            return zset.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
        }

        private static String string(final Integer score)
        {
            return score == null ? null : score.toString();
        }

        private static String bulk(final String value)
        {
            return value == null ? "$nil" : "$" + value;
        }

        private static String array(final List<String> items)
        {
            return "*" + items.size() + items.stream().map(item -> "$" + item)
                .collect(Collectors.joining(", ", "[", "]"));
        }
    }

    /** A sorted set's members and scores: a type of its own, so that the model tells it from a hash. */
    private static final class ZSet extends HashMap<String, Integer>
    {
    }
}
