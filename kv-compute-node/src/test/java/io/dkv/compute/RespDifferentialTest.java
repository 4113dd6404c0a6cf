package io.dkv.compute;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node answers as redis-server 7 does: seeded random sequences of the commands it serves, over a small key
 * space and with their options and misuses (wrong arity, non-integers, overflow, NX on existing keys, unknown commands
 * and subcommands), get the same replies from both, byte for byte: values, types and error texts.
 */
class RespDifferentialTest
{
    private static final int COMMANDS_PER_SEED = 1_500;
    private static final String[] KEYS = {"k0", "k1", "k2", "k3", "counter"};
    private static final String[] VALUES = {"a", "hello", "12", "-7", "0", "9223372036854775806", "-9223372036854775807",
        "x y", "01", " 3", "3.5", ""};
    private static final String[] NUMBERS = {"1", "-3", "10", "abc", "9223372036854775807", "-9223372036854775808",
        "1.5", " 2", "+4", "0", "-0", "007"};
    private static final String[] EXPIRY_ARGS = {"10", "0", "-5", "abc", "9223372036854775807", "1.5"};
    private static final String[] SET_OPTIONS = {"NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "nx", "get",
        "BOGUS"};

    @TempDir
    static Path dir;
    private static RedisServer redis;
    private static TestStore store;

    @BeforeAll
    static void start() throws Exception
    {
        final String binary = RedisServer.binary("redis-server");
        if (binary == null)
        {
            System.out.println("RespDifferentialTest skipped: redis-server is not installed (.ci/run installs it)");
        }
        Assumptions.assumeTrue(binary != null, "redis-server is not installed (.ci/run installs it)");
        redis = RedisServer.start(binary, dir);
        store = new TestStore(new ComputeNodeContext());
    }

    @AfterAll
    static void stop() throws Exception
    {
        if (store != null)
        {
            store.close();
        }
        if (redis != null)
        {
            redis.close();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomCommandSequencesGetRedisServersReplies(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        try (RawResp expected = new RawResp(redis.port()); RawResp actual = new RawResp(store.port()))
        {
            for (final String key : KEYS)
            {
                expected.call("DEL", key);
                actual.call("DEL", key);
            }
            final List<String> history = new ArrayList<>();
            for (int i = 0; i < COMMANDS_PER_SEED; i++)
            {
                final String[] command = generate(random);
                history.add(String.join(" ", command));
                final String ours = actual.call(command);
                if (ours.contains("key expiry is not supported by this dkv compute node yet"))
                {
                    // redis would set a key with a TTL, which dkv does not store yet: not sent there
                    assertTrue(String.join(" ", command).toUpperCase().matches(".*(EX|PX|EXAT|PXAT|KEEPTTL).*"),
                        () -> "expiry refused for a command without expiry: " + history);
                    continue;
                }
                final String theirs = expected.call(command);
                final int at = i;
                assertEquals(theirs, ours, () -> "seed " + seed + ", command " + at + " " + String.join(" ", command) +
                    " after " + history.subList(Math.max(0, history.size() - 12), history.size()));
            }
        }
    }

    @Test
    void commandsRedisHasButThisNodeDoesNotServeYetAreNamedInTheError() throws Exception
    {
        try (RawResp actual = new RawResp(store.port()))
        {
            assertEquals("-ERR command 'EXPIRE' is not supported by this dkv compute node yet",
                actual.call("expire", "k0", "10"));
            assertEquals("-ERR command 'CLUSTER' is not supported by this dkv compute node yet",
                actual.call("CLUSTER", "SLOTS"));
        }
    }

    private static String[] generate(final Random random)
    {
        final String key = pick(random, KEYS);
        final String value = pick(random, VALUES);
        return switch (random.nextInt(30))
        {
            case 0, 1, 2 -> new String[]{"GET", key};
            case 3, 4, 5 -> set(random, key, value);
            case 6 -> new String[]{"GETSET", key, value};
            case 7 -> new String[]{"GETDEL", key};
            case 8 -> keys(random, "DEL");
            case 9 -> keys(random, "EXISTS");
            case 10 -> keys(random, "MGET");
            case 11 -> pairs(random, random.nextBoolean() ? "MSET" : "MSETNX");
            case 12, 13 -> new String[]{random.nextBoolean() ? "INCR" : "decr", key};
            case 14, 15 -> new String[]{random.nextBoolean() ? "INCRBY" : "DECRBY", key, pick(random, NUMBERS)};
            case 16 -> new String[]{"APPEND", key, value};
            case 17 -> new String[]{"STRLEN", key};
            case 18 -> new String[]{"SELECT", pick(random, new String[]{"0", "1", "abc", "-1", "99999999999"})};
            case 19 -> random.nextBoolean() ? new String[]{"PING"} : new String[]{"ping", value};
            case 20 -> new String[]{"ECHO", value};
            case 21 -> new String[]{"FOO", key, value};
            case 22 -> wrongArity(random, key);
            case 23 -> client(random, value);
            case 24 -> auth(random);
            case 25 -> new String[]{"HELLO", pick(random, new String[]{"4", "1", "abc", "-1"})};
            case 26 -> new String[]{"CONFIG", pick(random, new String[]{"FOO", "help2"})};
            case 27 -> new String[]{"COMMAND", "NOPE"};
            case 28 -> new String[]{"SET", key, value, "EX", pick(random, EXPIRY_ARGS)};
            default -> new String[]{"GET", key};
        };
    }

    private static String[] set(final Random random, final String key, final String value)
    {
        final List<String> command = new ArrayList<>(List.of("SET", key, value));
        final int options = random.nextInt(4);
        for (int i = 0; i < options; i++)
        {
            final String option = pick(random, SET_OPTIONS);
            command.add(option);
            if (option.matches("EX|PX|EXAT|PXAT") && random.nextInt(5) > 0)
            {
                command.add(pick(random, EXPIRY_ARGS));
            }
        }
        return command.toArray(String[]::new);
    }

    private static String[] keys(final Random random, final String name)
    {
        final List<String> command = new ArrayList<>(List.of(name));
        final int count = random.nextInt(4);
        for (int i = 0; i < count; i++)
        {
            command.add(pick(random, KEYS));
        }
        return command.toArray(String[]::new);
    }

    private static String[] pairs(final Random random, final String name)
    {
        final List<String> command = new ArrayList<>(List.of(name));
        final int count = random.nextInt(6);
        for (int i = 0; i < count; i++)
        {
            command.add(i % 2 == 0 ? pick(random, KEYS) : pick(random, VALUES));
        }
        return command.toArray(String[]::new);
    }

    private static String[] wrongArity(final Random random, final String key)
    {
        return switch (random.nextInt(8))
        {
            case 0 -> new String[]{"GET"};
            case 1 -> new String[]{"GET", key, key};
            case 2 -> new String[]{"SET", key};
            case 3 -> new String[]{"INCR"};
            case 4 -> new String[]{"INCRBY", key};
            case 5 -> new String[]{"STRLEN", key, "x"};
            case 6 -> new String[]{"PING", "a", "b"};
            default -> new String[]{"ECHO"};
        };
    }

    private static String[] client(final Random random, final String value)
    {
        return switch (random.nextInt(5))
        {
            case 0 -> new String[]{"CLIENT", "SETNAME", value.isEmpty() ? "name" : value};
            case 1 -> new String[]{"CLIENT", "GETNAME"};
            case 2 -> new String[]{"CLIENT", "FOO"};
            case 3 -> new String[]{"CLIENT"};
            default -> new String[]{"CLIENT", "SETNAME"};
        };
    }

    private static String[] auth(final Random random)
    {
        return switch (random.nextInt(4))
        {
            case 0 -> new String[]{"AUTH", "secret"};
            case 1 -> new String[]{"AUTH", "default", "anything"};
            case 2 -> new String[]{"AUTH", "someone", "secret"};
            default -> new String[]{"AUTH", "a", "b", "c"};
        };
    }

    private static String pick(final Random random, final String[] from)
    {
        return from[random.nextInt(from.length)];
    }
}
