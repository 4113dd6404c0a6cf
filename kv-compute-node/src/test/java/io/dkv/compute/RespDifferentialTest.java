package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node answers as redis-server 7 does: seeded random sequences of the commands it serves, over a small key
 * space and with their options and misuses (wrong arity, non-integers, overflow, NX on existing keys, expiry options
 * and conditions that conflict, times past or overflowing, unknown commands and subcommands), with MULTI, EXEC,
 * DISCARD, WATCH and UNWATCH among them (commands queued, refused while queuing, EXEC with and without a watched key
 * changed), get the same replies from both, byte for byte: values, types and error texts. Only the times left (TTL,
 * PTTL) and expiry times of keys given relative expiries may differ, by the moment between the two servers' reading
 * their clocks. {@link RespTransactionDifferentialTest} runs scripted transactions over several connections.
 */
class RespDifferentialTest
{
    private static final int COMMANDS_PER_SEED = 1_500;
    private static final String[] KEYS = {"k0", "k1", "k2", "k3", "counter"};
    private static final String[] VALUES =
        {"a", "hello", "12", "-7", "0", "9223372036854775806", "-9223372036854775807",
        "x y", "01", " 3", "3.5", ""};
    private static final String[] NUMBERS = {"1", "-3", "10", "abc", "9223372036854775807", "-9223372036854775808",
        "1.5", " 2", "+4", "0", "-0", "007"};
    private static final String[] SET_OPTIONS = {"NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "nx", "get",
        "keepttl", "PERSIST", "BOGUS"};
    private static final String[] GETEX_OPTIONS = {"EX", "PX", "EXAT", "PXAT", "PERSIST", "persist", "pxat", "KEEPTTL",
        "NX", "GET", "BOGUS"};
    private static final String[] EXPIRE_OPTIONS = {"NX", "XX", "GT", "LT", "gt", "lt", "nx", "BOGUS"};
    /** Absolute times (seconds or milliseconds, as the command reads them) long past or in the year 2100 and after. */
    private static final String[] ABSOLUTE_TIMES = {"4102444800", "4102448400", "4102444800500", "1", "1000000000",
        "9223372036854775807", "-9223372036854775808", "-9223372036854775"};
    /** Times redis refuses, or that delete the key, whichever command they are given to. */
    private static final String[] BAD_TIMES = {"0", "-5", "abc", "1.5", "", " 5", "9223372036854775807",
        "-9223372036854775808"};
    /** Seconds that overflow once made milliseconds (or, relative, once now is added); as milliseconds, valid. */
    private static final String[] SECONDS_OVERFLOW = {"9223372036854775", "-9223372036854776"};

    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomCommandSequencesGetRedisServersReplies(final long seed) throws Exception
    {
        final Generator generator = new Generator(new Random(seed));
        try (RawResp expected = new RawResp(SERVERS.redis().port());
            RawResp actual = new RawResp(SERVERS.store().port()))
        {
            for (final String key : KEYS)
            {
                expected.call("DEL", key);
                actual.call("DEL", key);
            }
            final List<String> history = new ArrayList<>();
            for (int i = 0; i < COMMANDS_PER_SEED; i++)
            {
                final String[] command = generator.generate();
                history.add(String.join(" ", command));
                final String theirs = expected.call(command);
                final String ours = actual.call(command);
                final int at = i;
                assertTrue(sameReply(command[0], theirs, ours), () -> "seed " + seed + ", command " + at + " " +
                    String.join(" ", command) + ": redis answered " + theirs + ", dkv " + ours + " after " +
                    history.subList(Math.max(0, history.size() - 12), history.size()));
            }
        }
    }

    /**
     * Replies are the same bytes, but for the times left or expiry times of keys given a relative expiry: the two
     * servers read their clocks a moment apart, so those may differ by that moment, rounded; -1 and -2 may not.
     */
    /**
     * dkv keeps expiry times up to 2^56 ms (the year 2,285,000; KeyStore.storable): a time past it reads back as that
     * one, where redis answers the time given. Both are beyond any clock.
     */
    private static boolean beyondStorableExpiry(final String name, final String theirs, final String ours)
    {
        final boolean seconds = name.equals("TTL") || name.equals("EXPIRETIME");
        final boolean millis = name.equals("PTTL") || name.equals("PEXPIRETIME");
        if (!(seconds || millis) || !theirs.matches(":[0-9]+") || !ours.matches(":[0-9]+"))
        {
            return false;
        }
        final long far = (1L << 55) / (seconds ? 1000 : 1);
        return Long.parseLong(theirs.substring(1)) >= far && Long.parseLong(ours.substring(1)) >= far;
    }

    static boolean sameReply(final String command, final String theirs, final String ours)
    {
        if (theirs.equals(ours))
        {
            return true;
        }
        final String name = command.toUpperCase();
        if (beyondStorableExpiry(name, theirs, ours))
        {
            return true;
        }
        final long tolerance = name.equals("TTL") || name.equals("EXPIRETIME") ? 1 :
            name.equals("PTTL") || name.equals("PEXPIRETIME") ? 1000 : 0;
        if (tolerance == 0 || !theirs.matches(":[0-9]+") || !ours.matches(":[0-9]+"))
        {
            return false;
        }
        return Math.abs(Long.parseLong(theirs.substring(1)) - Long.parseLong(ours.substring(1))) <= tolerance;
    }

    @Test
    void commandsRedisHasButThisNodeDoesNotServeYetAreNamedInTheError() throws Exception
    {
        try (RawResp actual = new RawResp(SERVERS.store().port()))
        {
            assertEquals("-ERR command 'XREAD' is not supported by this dkv compute node yet",
                actual.call("xread", "STREAMS", "k0", "0"));
            assertEquals("-ERR command 'XADD' is not supported by this dkv compute node yet",
                actual.call("XADD", "k0", "*", "f", "v"));
        }
    }

    @Test
    void everyCommandRedisHasIsServedOrNamedAsNotServedYet() throws Exception
    {
        final List<String> names = new ArrayList<>();
        try (var in = RespDifferentialTest.class.getResourceAsStream("/io/dkv/compute/command/redis-7.0-commands.txt"))
        {
            for (final String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII)
                .split("\n"))
            {
                if (!line.isBlank() && !line.startsWith("#"))
                {
                    names.add(line.strip());
                }
            }
        }
        assertEquals(241, names.size(), "redis 7.0 has 241 commands");
        try (RawResp actual = new RawResp(SERVERS.store().port()))
        {
            for (final String name : names)
            {
                if (name.equals("quit") || name.equals("multi"))
                {
                    continue;
                }
                final String reply = actual.call(name);
                assertTrue(!reply.startsWith("-ERR unknown command"), name + ": " + reply);
            }
            assertTrue(actual.call("nosuchcommand").startsWith("-ERR unknown command 'nosuchcommand'"));
        }
    }

    @Test
    void commandInfoDescribesEachCommandNamedInItsOrder() throws Exception
    {
        try (RawResp actual = new RawResp(SERVERS.store().port()))
        {
            final String reply = actual.call("COMMAND", "INFO", "get", "SET", "nope");
            assertTrue(reply.startsWith("*3[*10[$get, :2, ") && reply.contains("], *10[$set, :-3, ") &&
                reply.endsWith(", $nil]"), reply);
        }
    }

    /**
     * Random commands over the key space. Relative expiry times are long (minutes to days) so that no key expires
     * during a run, and each is drawn once per run and {@link #SPACING_MS} apart from the others: EXPIRE's GT and LT
     * then compare times that differ by far more than the two servers' clocks do, never two from the same number
     * read at different moments.
     *
     * <p>Transactions: MULTI, EXEC, DISCARD (and their misuses), UNWATCH, and WATCH of keys each SET just before, so
     * that a key is watched while it has a value: dkv compares a watched key's version, and a key that had no value
     * when watched and has none again at EXEC (set and deleted between) passes where redis's EXEC fails
     * (kv-compute-node/README.md). Inside MULTI, commands that read a time left are replaced by GET: EXEC's array
     * would hold them, where the two servers' clocks may differ.
     */
    private static final class Generator
    {
        private static final long SPACING_MS = 100_000;
        private static final int RELATIVE_TIMES = 2_000;
        private static final Set<String> TIME_READS = Set.of("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME");

        private final Random random;
        private final Set<Integer> relativeTimesUsed = new HashSet<>();
        private final ArrayDeque<String[]> next = new ArrayDeque<>();
        private boolean inMulti;

        Generator(final Random random)
        {
            this.random = random;
        }

        String[] generate()
        {
            String[] command = next.isEmpty() ? any() : next.poll();
            final String name = command[0].toUpperCase();
            if (inMulti && TIME_READS.contains(name))
            {
                command = new String[]{"GET", command[1]};
            }
            if (name.equals("MULTI") && command.length == 1)
            {
                inMulti = true;
            }
            // EXEC ends MULTI whether it runs or is refused (its wrong arity aborts the transaction, as in redis)
            if (name.equals("EXEC") || name.equals("DISCARD") && command.length == 1)
            {
                inMulti = false;
            }
            return command;
        }

        private String[] any()
        {
            final String key = pick(KEYS);
            final String value = pick(VALUES);
            return switch (random.nextInt(46))
            {
                case 0, 1, 2 -> new String[]{"GET", key};
                case 3, 4, 5 -> set(key, value);
                case 6 -> new String[]{"GETSET", key, value};
                case 7 -> new String[]{"GETDEL", key};
                case 8 -> keys("DEL");
                case 9 -> keys("EXISTS");
                case 10 -> keys("MGET");
                case 11 -> pairs(random.nextBoolean() ? "MSET" : "MSETNX");
                case 12, 13 -> new String[]{random.nextBoolean() ? "INCR" : "decr", key};
                case 14, 15 -> new String[]{random.nextBoolean() ? "INCRBY" : "DECRBY", key, pick(NUMBERS)};
                case 16 -> new String[]{"APPEND", key, value};
                case 17 -> new String[]{"STRLEN", key};
                case 18 -> new String[]{"SELECT", pick(new String[]{"0", "1", "abc", "-1", "99999999999"})};
                case 19 -> random.nextBoolean() ? new String[]{"PING"} : new String[]{"ping", value};
                case 20 -> new String[]{"ECHO", value};
                case 21 -> new String[]{"FOO", key, value};
                case 22 -> wrongArity(key);
                case 23 -> client(value);
                case 24 -> auth();
                case 25 -> new String[]{"HELLO", pick(new String[]{"4", "1", "abc", "-1"})};
                case 26 -> new String[]{"CONFIG", pick(new String[]{"FOO", "help2"})};
                case 27 -> new String[]{"COMMAND", "NOPE"};
                case 28 -> set(key, value, pick(new String[]{"EX", "PX", "EXAT", "PXAT"}));
                case 29, 30, 31 -> expire(key);
                case 32, 33 -> new String[]{pick(new String[]{"TTL", "PTTL", "ttl"}), key};
                case 34 -> new String[]{pick(new String[]{"EXPIRETIME", "PEXPIRETIME"}), key};
                case 35 -> new String[]{"PERSIST", key};
                case 36, 37 -> getEx(key);
                case 38 -> setIn(key, value);
                case 39 -> new String[]{pick(new String[]{"SETNX", "setnx"}), key, value};
                case 40, 41 -> new String[]{pick(new String[]{"MULTI", "multi"})};
                case 42, 43 -> random.nextInt(8) > 0 ? new String[]{"EXEC"} : new String[]{"DISCARD"};
                case 44 -> watch();
                case 45 -> transactionMisuse(key);
                default -> new String[]{"GET", key};
            };
        }

        /** SET each key to watch, then WATCH them (the SETs are returned first, the WATCH next). */
        private String[] watch()
        {
            final List<String> watch = new ArrayList<>(List.of("WATCH"));
            final int count = 1 + random.nextInt(2);
            for (int i = 0; i < count; i++)
            {
                final String key = pick(KEYS);
                watch.add(key);
                next.add(new String[]{"SET", key, pick(VALUES)});
            }
            next.add(watch.toArray(String[]::new));
            return next.poll();
        }

        private String[] transactionMisuse(final String key)
        {
            return switch (random.nextInt(6))
            {
                case 0 -> new String[]{"UNWATCH"};
                case 1 -> new String[]{"EXEC", key};
                case 2 -> new String[]{"DISCARD", key};
                case 3 -> new String[]{"MULTI", key};
                case 4 -> new String[]{"WATCH"};
                // redis refuses SAVE inside MULTI only: outside, it saves
                default -> inMulti ? new String[]{"SAVE"} : new String[]{"UNWATCH"};
            };
        }

        private String[] set(final String key, final String value, final String expiry)
        {
            return new String[]{"SET", key, value, expiry, time(expiry)};
        }

        private String[] set(final String key, final String value)
        {
            return withOptions(4, SET_OPTIONS, "SET", key, value);
        }

        /** SETEX or PSETEX, with times valid, refused or overflowing as SET's EX and PX take them. */
        private String[] setIn(final String key, final String value)
        {
            final boolean seconds = random.nextBoolean();
            return new String[]{seconds ? "SETEX" : "psetex", key, time(seconds ? "EX" : "PX"), value};
        }

        private String[] getEx(final String key)
        {
            return withOptions(3, GETEX_OPTIONS, "GETEX", key);
        }

        /**
         * The command followed by fewer than {@code bound} options picked from {@code choices}, an expiry option
         * mostly with a time after it and sometimes without, as a client that forgot it would send.
         */
        private String[] withOptions(final int bound, final String[] choices, final String... start)
        {
            final List<String> command = new ArrayList<>(List.of(start));
            final int options = random.nextInt(bound);
            for (int i = 0; i < options; i++)
            {
                final String option = pick(choices);
                command.add(option);
                if (option.matches("EX|PX|EXAT|PXAT") && random.nextInt(5) > 0)
                {
                    command.add(time(option));
                }
            }
            return command.toArray(String[]::new);
        }

        /** EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT, with times valid, past, malformed or overflowing, and options. */
        private String[] expire(final String key)
        {
            final String name = pick(new String[]{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "pexpire"});
            final List<String> command = new ArrayList<>(List.of(name, key, time(name)));
            final int options = random.nextInt(10) < 6 ? random.nextInt(2) : random.nextInt(4);
            for (int i = 0; i < options; i++)
            {
                command.add(pick(EXPIRE_OPTIONS));
            }
            return command.toArray(String[]::new);
        }

        /**
         * A time for an expiry option or command: mostly a valid one (a long relative time, or an absolute one far in
         * the past or future), else one redis refuses or that deletes the key. A relative time is only ever one from
         * {@link #relativeTime}, so that no two commands ask for the same one.
         *
         * @param unitAndBase EX, PX, EXAT or PXAT, or an EXPIRE command's name: whether the time is relative and its
         *                    unit.
         */
        private String time(final String unitAndBase)
        {
            final String name = unitAndBase.toUpperCase();
            final boolean seconds = !name.startsWith("P");
            final boolean relative = !name.endsWith("AT");
            final int kind = random.nextInt(10);
            if (kind < 7)
            {
                return relative ? relativeTime(seconds) : pick(ABSOLUTE_TIMES);
            }
            return kind == 7 && seconds ? pick(SECONDS_OVERFLOW) : pick(BAD_TIMES);
        }

        private String relativeTime(final boolean seconds)
        {
            if (relativeTimesUsed.size() == RELATIVE_TIMES)
            {
                throw new IllegalStateException("all " + RELATIVE_TIMES + " relative times used in one run");
            }
            int slot;
            do
            {
                slot = 1 + random.nextInt(RELATIVE_TIMES);
            }
            while (!relativeTimesUsed.add(slot));
            final long millis = slot * SPACING_MS;
            return Long.toString(seconds ? millis / 1000 : millis);
        }

        private String[] keys(final String name)
        {
            final List<String> command = new ArrayList<>(List.of(name));
            final int count = random.nextInt(4);
            for (int i = 0; i < count; i++)
            {
                command.add(pick(KEYS));
            }
            return command.toArray(String[]::new);
        }

        private String[] pairs(final String name)
        {
            final List<String> command = new ArrayList<>(List.of(name));
            final int count = random.nextInt(6);
            for (int i = 0; i < count; i++)
            {
                command.add(i % 2 == 0 ? pick(KEYS) : pick(VALUES));
            }
            return command.toArray(String[]::new);
        }

        private String[] wrongArity(final String key)
        {
            return switch (random.nextInt(17))
            {
                case 0 -> new String[]{"GET"};
                case 1 -> new String[]{"GET", key, key};
                case 2 -> new String[]{"SET", key};
                case 3 -> new String[]{"INCR"};
                case 4 -> new String[]{"INCRBY", key};
                case 5 -> new String[]{"STRLEN", key, "x"};
                case 6 -> new String[]{"PING", "a", "b"};
                case 7 -> new String[]{"EXPIRE", key};
                case 8 -> new String[]{"PEXPIREAT"};
                case 9 -> new String[]{"TTL", key, key};
                case 10 -> new String[]{"PERSIST"};
                case 11 -> new String[]{"GETEX"};
                case 12 -> new String[]{"EXPIRETIME", key, "1"};
                case 13 -> new String[]{"SETEX", key, "10"};
                case 14 -> new String[]{"PSETEX", key, "10", "v", "x"};
                case 15 -> new String[]{"SETNX", key};
                default -> new String[]{"ECHO"};
            };
        }

        private String[] client(final String value)
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

        private String[] auth()
        {
            return switch (random.nextInt(4))
            {
                case 0 -> new String[]{"AUTH", "secret"};
                case 1 -> new String[]{"AUTH", "default", "anything"};
                case 2 -> new String[]{"AUTH", "someone", "secret"};
                default -> new String[]{"AUTH", "a", "b", "c"};
            };
        }

        private String pick(final String[] from)
        {
            return from[random.nextInt(from.length)];
        }
    }
}
