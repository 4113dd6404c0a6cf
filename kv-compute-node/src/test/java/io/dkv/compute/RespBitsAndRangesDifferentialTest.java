package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * GETRANGE, SUBSTR, SETRANGE, SETBIT, GETBIT, BITCOUNT, BITPOS and INCRBYFLOAT answer as redis-server 7.0 does, byte
 * for byte: seeded random sequences with their indexes from either end, units, misuses and odd values, and
 * INCRBYFLOAT's long double arithmetic over decimal, hex and infinite text, precision at 17 decimals, and values
 * redis refuses.
 */
class RespBitsAndRangesDifferentialTest
{
    private static final int COMMANDS_PER_SEED = 1_500;
    private static final String[] KEYS = {"s0", "s1", "f"};
    private static final String[] VALUES = {"", "hello world", "a", "\u00ff\u0001", "10.5", "  11", "abc", "1.1",
        "0x10", "inf", "1e400", "12", "-3", "5.0e3", "foo\u0000bar", "ohmytext", "mynewtext", "abcbdab", "bdcaba"};
    private static final String[] INDEXES = {"0", "1", "3", "-1", "-3", "-100", "100", "abc", "9223372036854775807",
        "-9223372036854775808", "2", "-2", "7", "8", "15", "16"};
    private static final String[] OFFSETS = {"0", "1", "5", "20", "-1", "abc", "3", "100", "9223372036854775807",
        "536870912", "2147483647"};
    private static final String[] BIT_OFFSETS = {"0", "1", "7", "8", "15", "100", "-1", "abc", "4294967296",
        "31", "63", "9"};
    private static final String[] BITS = {"0", "1", "1", "0", "2", "-1", "abc"};
    private static final String[] FIELD_TYPES = {"u8", "i8", "u1", "i1", "u63", "i64", "u64", "i65", "u0", "x8",
        "i16", "u5", "i5", "u", "i-3"};
    private static final String[] FIELD_OFFSETS = {"0", "3", "#1", "#0", "100", "-1", "abc", "#-1", "7", "13"};
    private static final String[] FIELD_VALUES = {"0", "1", "-1", "100", "255", "256", "-128", "127", "abc",
        "9223372036854775807", "-9223372036854775808", "1000", "-1000", "31", "32"};
    private static final String[] OPS = {"AND", "OR", "XOR", "NOT", "and", "bogus"};
    private static final String[] LCS_OPTIONS = {"LEN", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "idx", "bogus"};
    private static final String[] UNITS = {"BIT", "BYTE", "bit", "byte", "bogus"};
    private static final String[] FLOATS = {"1", "0.1", "-0.1", "1.5e3", "3.0e-2", "10.5", "1e30", "-1e30", "0x1p3",
        "inf", "-inf", "nan", "abc", " 1", "1 ", "", "1e5000", "1e-5000", "17179869184", "1.1", "2.2", "5.0e3",
        "123456789012345678901234567890.123", "0.00000000000000001", "-0", ".5", "5.", "1e", "0x", "+1",
        "0x1.8p-2", "-1.1", "1e-20", "-5.0e3", "3", "0.333333333333333333333333", "INF", "Infinity"};

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomSequencesGetRedisServersReplies(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String key : KEYS)
            {
                redis.call("DEL", key);
                dkv.call("DEL", key);
            }
            final List<String> history = new ArrayList<>();
            for (int i = 0; i < COMMANDS_PER_SEED; i++)
            {
                final String[] command = generate(random);
                history.add(String.join(" ", command));
                final String theirs = redis.call(command);
                final String ours = dkv.call(command);
                final int at = i;
                assertEquals(theirs, ours, () -> "seed " + seed + ", command " + at + " " + String.join(" ", command) +
                    " after " + history.subList(Math.max(0, history.size() - 12), history.size()));
            }
        }
    }

    @Test
    void incrByFloatAddsAsRedissLongDoubleAndPrintsAsIt() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String start : FLOATS)
            {
                for (final String by : FLOATS)
                {
                    both(redis, dkv, "SET", "f", start);
                    both(redis, dkv, "INCRBYFLOAT", "f", by);
                    both(redis, dkv, "INCRBYFLOAT", "f", by);
                    both(redis, dkv, "GET", "f");
                }
            }
            both(redis, dkv, "DEL", "f");
            both(redis, dkv, "INCRBYFLOAT", "f", "0.1");
            for (int i = 0; i < 30; i++)
            {
                both(redis, dkv, "INCRBYFLOAT", "f", "0.1");
            }
            both(redis, dkv, "SET", "f", "1", "EX", "100");
            both(redis, dkv, "INCRBYFLOAT", "f", "1.5");
            both(redis, dkv, "TTL", "f");
        }
    }

    @Test
    void bitfieldOverflowsAsRedisDoesForEveryKindTypeAndDirection() throws Exception
    {
        try (RawResp redis = new RawResp(SERVERS.redis().port()); RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            for (final String type : List.of("u8", "i8", "u1", "i1", "u63", "i64", "u5", "i5"))
            {
                for (final String overflow : List.of("WRAP", "SAT", "FAIL"))
                {
                    for (final String start : List.of("0", "1", "-1", "100", "-100", "9223372036854775807",
                        "-9223372036854775808"))
                    {
                        for (final String by : List.of("1", "-1", "200", "-200", "9223372036854775807",
                            "-9223372036854775808", "0"))
                        {
                            both(redis, dkv, "DEL", "bf");
                            both(redis, dkv, "BITFIELD", "bf", "OVERFLOW", overflow, "SET", type, "3", start,
                                "INCRBY", type, "3", by, "GET", type, "3", "GET", "u8", "0");
                            both(redis, dkv, "GET", "bf");
                        }
                    }
                }
            }
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws Exception
    {
        SameReplies.assertSameReply(redis, dkv, command);
    }

    private static String[] generate(final Random random)
    {
        final String key = pick(random, KEYS);
        return switch (random.nextInt(17))
        {
            case 0 -> new String[]{"SET", key, pick(random, VALUES)};
            case 1 -> new String[]{random.nextBoolean() ? "GETRANGE" : "SUBSTR", key, pick(random, INDEXES),
                pick(random, INDEXES)};
            case 2 -> new String[]{"SETRANGE", key, pick(random, OFFSETS), pick(random, VALUES)};
            case 3, 4 -> new String[]{"SETBIT", key, pick(random, BIT_OFFSETS), pick(random, BITS)};
            case 5 -> new String[]{"GETBIT", key, pick(random, BIT_OFFSETS)};
            case 6 -> switch (random.nextInt(4))
            {
                case 0 -> new String[]{"BITCOUNT", key};
                case 1 -> new String[]{"BITCOUNT", key, pick(random, INDEXES)};
                case 2 -> new String[]{"BITCOUNT", key, pick(random, INDEXES), pick(random, INDEXES)};
                default -> new String[]{"BITCOUNT", key, pick(random, INDEXES), pick(random, INDEXES),
                    pick(random, UNITS)};
            };
            case 7, 8 -> switch (random.nextInt(5))
            {
                case 0 -> new String[]{"BITPOS", key, pick(random, BITS)};
                case 1 -> new String[]{"BITPOS", key, pick(random, BITS), pick(random, INDEXES)};
                case 2 -> new String[]{"BITPOS", key, pick(random, BITS), pick(random, INDEXES),
                    pick(random, INDEXES)};
                case 3 -> new String[]{"BITPOS", key, pick(random, BITS), pick(random, INDEXES),
                    pick(random, INDEXES), pick(random, UNITS)};
                default -> new String[]{"BITPOS", key, pick(random, BITS), "0", "-1", "BIT", "extra"};
            };
            case 9 -> new String[]{"INCRBYFLOAT", key, pick(random, FLOATS)};
            case 10 -> new String[]{"GET", key};
            case 12 -> random.nextInt(4) == 0 ? new String[]{"BITOP", "NOT", pick(random, KEYS), key} :
                new String[]{"BITOP", pick(random, OPS), pick(random, KEYS), key, pick(random, KEYS), "nokey"};
            case 13 -> new String[]{"BITOP", pick(random, OPS), pick(random, KEYS), key};
            case 14 -> lcs(random, key);
            case 15, 16 -> bitfield(random, key);
            default -> new String[]{random.nextBoolean() ? "STRLEN" : "DEL", key};
        };
    }

    private static String[] bitfield(final Random random, final String key)
    {
        final List<String> command = new ArrayList<>(List.of(random.nextInt(5) == 0 ? "BITFIELD_RO" : "BITFIELD", key));
        for (int i = random.nextInt(4); i >= 0; i--)
        {
            switch (random.nextInt(5))
            {
                case 0 -> command.addAll(List.of("GET", pick(random, FIELD_TYPES), pick(random, FIELD_OFFSETS)));
                case 1 -> command.addAll(List.of("SET", pick(random, FIELD_TYPES), pick(random, FIELD_OFFSETS),
                    pick(random, FIELD_VALUES)));
                case 2 -> command.addAll(List.of("INCRBY", pick(random, FIELD_TYPES), pick(random, FIELD_OFFSETS),
                    pick(random, FIELD_VALUES)));
                case 3 -> command.addAll(List.of("OVERFLOW", pick(random, new String[]{"WRAP", "SAT", "FAIL", "sat",
                    "bogus"})));
                default -> command.add(pick(random, new String[]{"GET", "bogus", "SET"}));
            }
        }
        return command.toArray(String[]::new);
    }

    private static String[] lcs(final Random random, final String key)
    {
        final List<String> command = new ArrayList<>(List.of("LCS", key, pick(random, KEYS)));
        for (int i = random.nextInt(4); i > 0; i--)
        {
            final String option = pick(random, LCS_OPTIONS);
            command.add(option);
            if (option.equalsIgnoreCase("MINMATCHLEN"))
            {
                command.add(pick(random, new String[]{"0", "1", "2", "4", "-1", "abc"}));
            }
        }
        return command.toArray(String[]::new);
    }

    private static String pick(final Random random, final String[] values)
    {
        return values[random.nextInt(values.length)];
    }
}
