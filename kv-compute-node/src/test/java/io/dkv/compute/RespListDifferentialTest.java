package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lists answer as redis-server 7.0's do, reply for reply, in RESP2 and RESP3: every list command with its options,
 * its errors in redis's order (arity, syntax, numbers, WRONGTYPE against a string and a hash), inside MULTI/EXEC, the
 * keyspace's commands over lists (TYPE, RENAME, COPY, DEL, EXPIRE, SCAN TYPE), lists emptied by any command removed,
 * and lists of thousands of elements of varied sizes (many tree nodes) pushed, read, changed and trimmed.
 */
class RespListDifferentialTest
{
    @RegisterExtension
    static final StoreBesideRedis SERVERS = new StoreBesideRedis();

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void listCommandsAnswerAsRedis(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            compare(redis, dkv,
                // pushes, lengths, ranges, indexes
                "SET str v", "HSET h f v", "RPUSH l a b c d e", "LPUSH l z y x", "LPUSHX l w", "RPUSHX l f g",
                "LPUSHX nope a", "RPUSHX nope a b", "EXISTS nope", "LLEN l", "LLEN nope", "LRANGE l 0 -1",
                "LRANGE l -3 -1", "LRANGE l -100 100", "LRANGE l 5 2", "LRANGE l 20 30", "LRANGE l 0 0",
                "LRANGE l -1 -1", "LRANGE l 2 -3", "LRANGE l -9223372036854775808 9223372036854775807",
                "LRANGE l 9223372036854775807 -9223372036854775808", "LRANGE l x 1", "LRANGE l 1 x",
                "LRANGE nope 0 -1", "LRANGE nope x 1", "LRANGE l 1.5 2", "LRANGE l 99999999999999999999 1",
                "LRANGE l 01 2", "LINDEX l 0", "LINDEX l -1", "LINDEX l 5", "LINDEX l 100", "LINDEX l -100",
                "LINDEX l x", "LINDEX nope x", "LINDEX nope 0", "LINDEX l -9223372036854775808",
                // LSET: no key, then the index
                "LSET l 0 A", "LSET l -1 G", "LSET l 100 X", "LSET l -100 X", "LSET l x X", "LSET nope 0 X",
                "LSET nope x X", "LRANGE l 0 -1",
                // LINSERT
                "LINSERT l BEFORE c C1", "LINSERT l after c C2", "LINSERT l before A A0", "LINSERT l AFTER G G1",
                "LINSERT l BEFORE nope X", "LINSERT l middle c X", "LINSERT nope BEFORE c X",
                "LINSERT nope middle c X", "LRANGE l 0 -1",
                // pops
                "LPOP l", "RPOP l", "LPOP l 2", "RPOP l 2", "LPOP l 0", "RPOP l 0", "LPOP l 1", "RPOP l 1",
                "LPOP l -1", "LPOP l x", "RPOP l -9223372036854775808", "LPOP l 1 2", "RPOP l 1 2", "LPOP nope",
                "LPOP nope 2", "LPOP nope 0", "LPOP nope -1", "RPOP nope", "RPOP nope 3", "RPOP nope 0",
                "LRANGE l 0 -1", "RPOP l 100", "EXISTS l", "LPOP l", "LPOP l 1",
                "RPUSH l2 a b c", "LPOP l2 9223372036854775807", "EXISTS l2",
                // LREM
                "RPUSH r a b a c a b a", "LREM r 2 a", "LRANGE r 0 -1", "LREM r -1 a", "LRANGE r 0 -1", "LREM r 0 b",
                "LRANGE r 0 -1", "LREM r 0 nope", "LREM r x a", "LREM nope 1 a", "LREM nope x a",
                "RPUSH r a a c a", "LREM r -9223372036854775808 a", "LRANGE r 0 -1", "LREM r 0 c", "EXISTS r",
                // LTRIM
                "RPUSH t 0 1 2 3 4 5 6 7 8 9", "LTRIM t 1 -2", "LRANGE t 0 -1", "LTRIM t -3 100", "LRANGE t 0 -1",
                "LTRIM t 0 0", "LRANGE t 0 -1", "LTRIM t x 1", "LTRIM t 0 x", "LTRIM nope 0 1", "LTRIM nope x 1",
                "LTRIM t 5 2", "EXISTS t", "RPUSH t a b c", "LTRIM t -100 -50", "EXISTS t", "RPUSH t a b c",
                "LTRIM t -9223372036854775808 9223372036854775807", "LRANGE t 0 -1", "LTRIM t 3 3", "EXISTS t",
                // LPOS: its options before the key
                "RPUSH p a b c 1 2 3 c c", "LPOS p c", "LPOS p c RANK 2", "LPOS p c RANK -1", "LPOS p c RANK -2",
                "LPOS p c RANK 10", "LPOS p c COUNT 0", "LPOS p c COUNT 2", "LPOS p c RANK -1 COUNT 2",
                "LPOS p c RANK 2 COUNT 0", "LPOS p c RANK -3 COUNT 0", "LPOS p c MAXLEN 3", "LPOS p c MAXLEN 2",
                "LPOS p c RANK -1 MAXLEN 1", "LPOS p c RANK -1 MAXLEN 2 COUNT 0", "LPOS p c COUNT 0 MAXLEN 7",
                "LPOS p c COUNT 1 MAXLEN 0", "LPOS p x", "LPOS p x COUNT 0", "LPOS nope a", "LPOS nope a COUNT 5",
                "LPOS p c RANK 0", "LPOS p c RANK x", "LPOS p c COUNT -1", "LPOS p c COUNT x", "LPOS p c MAXLEN -1",
                "LPOS p c MAXLEN x", "LPOS p c RANK", "LPOS p c COUNT", "LPOS p c BOGUS 1", "LPOS p c rank 1 RANK -1",
                "LPOS p c RANK -9223372036854775808", "LPOS p c RANK -9223372036854775808 COUNT 1",
                "LPOS p c RANK 9223372036854775807 COUNT 0", "LPOS nope a RANK 0", "LPOS str a",
                "LPOS str a RANK 0", "LPOS h a COUNT 0",
                // LMOVE and RPOPLPUSH
                "RPUSH m1 a b c", "RPUSH m2 x y", "LMOVE m1 m2 LEFT RIGHT", "LMOVE m1 m2 RIGHT LEFT",
                "LRANGE m1 0 -1", "LRANGE m2 0 -1", "LMOVE m2 m2 LEFT RIGHT", "LRANGE m2 0 -1",
                "LMOVE m2 m2 RIGHT LEFT", "LMOVE m2 m2 left left", "LMOVE m2 m2 right right", "LRANGE m2 0 -1",
                "LMOVE m1 m3 LEFT LEFT", "EXISTS m1", "LRANGE m3 0 -1", "LMOVE nope m3 LEFT LEFT",
                "LMOVE nope str LEFT LEFT", "LMOVE m3 str LEFT LEFT", "LMOVE str m3 LEFT LEFT",
                "LMOVE m3 h RIGHT RIGHT", "LMOVE m3 m2 UP LEFT", "LMOVE m3 m2 LEFT DOWN", "LMOVE nope m2 UP LEFT",
                "LRANGE m3 0 -1", "RPUSH one z", "LMOVE one one LEFT RIGHT", "LRANGE one 0 -1",
                "LMOVE one two RIGHT LEFT", "EXISTS one", "RPOPLPUSH m2 m3", "RPOPLPUSH nope m3",
                "RPOPLPUSH m3 h", "RPOPLPUSH m3 m3", "LRANGE m3 0 -1", "LRANGE m2 0 -1",
                // LMPOP
                "RPUSH mp1 a b c d e", "LMPOP 2 nope mp1 LEFT", "LMPOP 2 nope mp1 RIGHT COUNT 2",
                "LMPOP 1 mp1 left count 10", "EXISTS mp1", "LMPOP 2 nope nope2 LEFT", "LMPOP 0 a LEFT",
                "LMPOP -1 a LEFT", "LMPOP x a LEFT", "LMPOP 3 a b LEFT", "LMPOP 2 a b", "LMPOP 1 a UP",
                "LMPOP 1 a LEFT COUNT 0", "LMPOP 1 a LEFT COUNT -1", "LMPOP 1 a LEFT COUNT x",
                "LMPOP 1 a LEFT COUNT 1 COUNT 2", "LMPOP 1 a LEFT COUNT", "LMPOP 1 a LEFT BOGUS",
                "LMPOP 1 a RIGHT COUNT 9223372036854775807", "LMPOP 2 str mp2 LEFT", "RPUSH mp2 q",
                "LMPOP 2 mp2 str LEFT", "LMPOP 9223372036854775807 a LEFT", "LMPOP 2 h mp2 LEFT COUNT 0",
                "RPUSH mp3 a b c", "LMPOP 2 mp3 mp3 RIGHT COUNT 2", "LRANGE mp3 0 -1",
                // arity, checked before anything else
                "LPUSH l", "RPUSH l", "LPUSHX l", "RPUSHX l", "LPOP", "RPOP", "LLEN", "LLEN a b", "LRANGE l 0",
                "LRANGE l 0 1 2", "LINDEX l", "LSET l 0", "LINSERT l BEFORE a", "LREM l 0", "LTRIM l 0", "LPOS l",
                "LMOVE a b LEFT", "RPOPLPUSH a", "RPOPLPUSH a b c", "LMPOP 1 a", "LMPOP 1");
            both(redis, dkv, "LPUSH", "e", "", "x y", "");
            both(redis, dkv, "LRANGE", "e", "0", "-1");
            both(redis, dkv, "LREM", "e", "0", "");
            both(redis, dkv, "LPOS", "e", "x y");
            both(redis, dkv, "LINSERT", "e", "AFTER", "x y", "");
            both(redis, dkv, "LRANGE", "e", "0", "-1");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void wrongTypeAndTheKeyspaceOverLists(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            compare(redis, dkv,
                "SET str v", "HSET h f v", "RPUSH l a b",
                "LPUSH str a", "RPUSH h a", "LPUSHX str a", "RPUSHX h a", "LPOP str", "RPOP h 2", "LPOP str 0",
                "LPOP h x", "LLEN str", "LRANGE h 0 -1", "LRANGE str x 1", "LINDEX str 0", "LINDEX h x",
                "LSET str 0 a", "LSET h x a", "LINSERT str BEFORE a b", "LINSERT h middle a b", "LREM str 0 a",
                "LREM h x a", "LTRIM h 0 1", "LTRIM str x 1", "LPOS str a", "LMOVE str l LEFT LEFT",
                "LMOVE l h LEFT LEFT", "LMPOP 1 str LEFT", "RPOPLPUSH h l", "RPOPLPUSH l str", "LRANGE l 0 -1",
                "GET l", "HGET l f", "SADD l x", "SCARD l", "INCR l", "APPEND l x", "STRLEN l", "TYPE l",
                "EXISTS l str h", "TYPE str",
                // the keyspace over lists
                "RPUSH k1 a b c", "TYPE k1", "TTL k1", "EXPIRE k1 100", "TTL k1", "EXPIRE k1 200 NX", "PERSIST k1",
                "TTL k1", "EXPIRE k1 100", "RPUSH k1 d", "LPOP k1", "TTL k1", "LSET k1 0 B", "TTL k1",
                "RENAME k1 k2", "LRANGE k2 0 -1", "EXISTS k1", "TTL k2", "PERSIST k2", "COPY k2 k3",
                "RPUSH k3 d", "LRANGE k2 0 -1", "LRANGE k3 0 -1", "COPY k2 k3", "COPY k2 k3 REPLACE",
                "LRANGE k3 0 -1", "RENAMENX k2 k3", "RENAME k2 k2", "DEL k2 k3", "EXISTS k2 k3",
                "RPUSH k4 a", "EXPIRE k4 -1", "EXISTS k4", "LLEN k4", "RPUSH k5 a", "SET k5 v", "TYPE k5",
                "GET k5", "RPUSH k6 a", "RENAME str k6", "TYPE k6", "GET k6", "RPUSH k7 a b", "RENAME k7 h",
                "TYPE h", "LRANGE h 0 -1", "RPUSH k8 a", "SET k8 x NX", "SET k8 x XX", "TYPE k8",
                "RPUSH k9 a b c", "UNLINK k9", "EXISTS k9", "RPUSH k10 a", "OBJECT ENCODING k10", "OBJECT REFCOUNT k10",
                "PEXPIRE k10 100000", "COPY k10 k11",
                "TTL k11", "DBSIZE");
            both(redis, dkv, "RPUSH", "s1", "a");
            assertEquals(scanKeys(redis, "TYPE", "list"), scanKeys(dkv, "TYPE", "list"));
            assertEquals(scanKeys(redis), scanKeys(dkv), "a list's nodes are not keys");
            both(redis, dkv, "FLUSHALL");
            both(redis, dkv, "DBSIZE");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void listsInsideMultiAnswerAsRedis(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            compare(redis, dkv, "SET str v",
                "MULTI", "RPUSH q a b c d", "LPOP q", "LRANGE q 0 -1", "LMOVE q q2 LEFT RIGHT", "LLEN q2",
                "LSET q 5 x", "LINDEX q 0", "RPOPLPUSH q q2", "LPUSH str x", "LINSERT q BEFORE d c", "LPOS q d",
                "RPOP q 5", "EXISTS q", "RPUSH q z", "LREM q2 0 b", "LRANGE q2 0 -1", "EXEC",
                "LRANGE q2 0 -1", "LRANGE q 0 -1",
                "MULTI", "LPUSH q x", "LTRIM q 1 0", "EXISTS q", "LPUSH q y", "LMPOP 2 q q2 RIGHT COUNT 5",
                "EXISTS q", "RENAME q2 q3", "LRANGE q3 0 -1", "DEL q3", "LPUSH q3 n", "EXEC", "LRANGE q3 0 -1",
                "MULTI", "LPUSH q4 a", "LPUSH q4", "EXEC", "EXISTS q4",
                "MULTI", "LPUSH q4 a", "LMOVE q4 q4 UP DOWN", "LPOS q4 a RANK 0", "EXEC", "LRANGE q4 0 -1");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aWatchedListIsChangedOnlyByWhatChangesIt(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol);
            RawResp otherRedis = new RawResp(SERVERS.redis().port());
            RawResp otherDkv = new RawResp(SERVERS.store().port()))
        {
            both(redis, dkv, "DEL", "w", "w2");
            both(redis, dkv, "RPUSH", "w", "a", "b", "c");
            for (final String other : List.of("LPUSH w x", "LREM w 0 nope", "LREM w 1 x", "LTRIM w 0 -1",
                "LTRIM w 0 1", "LINSERT w BEFORE nope y", "LINSERT w AFTER a y", "LPOP w 0", "LSET w 0 a",
                "LPOS w a", "LRANGE w 0 -1", "LINDEX w 0", "LLEN w", "RPUSHX nope a", "LPUSHX w z",
                "LMOVE w w LEFT LEFT", "LMOVE nope w LEFT LEFT", "LMPOP 1 nope LEFT", "RPOPLPUSH w w2",
                "LMOVE w2 w RIGHT RIGHT", "RPOP w 0", "LMPOP 2 nope w RIGHT"))
            {
                both(redis, dkv, "WATCH", "w");
                both(redis, dkv, "MULTI");
                both(redis, dkv, "LRANGE", "w", "0", "-1");
                assertEquals(otherRedis.call(other.split(" ")), otherDkv.call(other.split(" ")), other);
                both(redis, dkv, "EXEC");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aListEmptiedByAnyCommandNoLongerExists(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            // each command, and the elements the list holds before it
            for (final String[] emptying : List.of(new String[]{"LPOP e", "1"}, new String[]{"RPOP e", "1"},
                new String[]{"LPOP e 3", "3"}, new String[]{"RPOP e 100", "3"}, new String[]{"LREM e 0 a", "3"},
                new String[]{"LREM e -5 a", "2"}, new String[]{"LTRIM e 2 1", "3"}, new String[]{"LTRIM e 10 20", "3"},
                new String[]{"LMOVE e other LEFT RIGHT", "1"}, new String[]{"RPOPLPUSH e other", "1"},
                new String[]{"LMPOP 1 e LEFT COUNT 3", "3"}, new String[]{"LMPOP 1 e RIGHT", "1"}))
            {
                final List<String> push = new ArrayList<>(List.of("RPUSH", "e"));
                for (int i = Integer.parseInt(emptying[1]); i > 0; i--)
                {
                    push.add("a");
                }
                both(redis, dkv, push.toArray(new String[0]));
                both(redis, dkv, emptying[0].split(" "));
                assertEquals(":0", dkv.call("EXISTS", "e"), emptying[0] + " leaves no list");
                both(redis, dkv, "EXISTS", "e");
                both(redis, dkv, "TYPE", "e");
                both(redis, dkv, "LLEN", "e");
            }
            both(redis, dkv, "DEL", "other");
            both(redis, dkv, "DBSIZE");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aListOfManyNodesAnswersAsRedis(final int protocol) throws Exception
    {
        try (RawResp redis = open(SERVERS.redis().port(), protocol);
            RawResp dkv = open(SERVERS.store().port(), protocol))
        {
            both(redis, dkv, "FLUSHALL");
            final Random random = new Random(protocol);
            final List<String> batch = new ArrayList<>();
            for (int i = 0; i < 3_000; i++)
            {
                // mostly short, some of a few hundred bytes, a few larger than a node's 4 KiB
                final int length = i % 97 == 0 ? 3_000 + random.nextInt(4_000) : i % 7 == 0 ?
                    200 + random.nextInt(400) : random.nextInt(40);
                batch.add("e" + i + ":" + "x".repeat(length));
                if (batch.size() == 250)
                {
                    batch.addAll(0, List.of((i / 250) % 2 == 0 ? "RPUSH" : "LPUSH", "big"));
                    both(redis, dkv, batch.toArray(new String[0]));
                    batch.clear();
                }
            }
            both(redis, dkv, "LLEN", "big");
            slices(redis, dkv, "big", 3_000);
            for (int i = -3_005; i < 3_005; i += 37)
            {
                both(redis, dkv, "LINDEX", "big", Integer.toString(i));
            }
            for (int i = -2_999; i < 3_000; i += 211)
            {
                both(redis, dkv, "LSET", "big", Integer.toString(i), "set" + i + "y".repeat(random.nextInt(600)));
                both(redis, dkv, "LINDEX", "big", Integer.toString(i));
            }
            for (int i = 100; i < 2_900; i += 400)
            {
                both(redis, dkv, "LSET", "big", Integer.toString(i), "dup");
                both(redis, dkv, "LSET", "big", Integer.toString(i + 7), "dup");
            }
            both(redis, dkv, "LPOS", "big", "dup", "COUNT", "0");
            both(redis, dkv, "LPOS", "big", "dup", "RANK", "-3", "COUNT", "4");
            both(redis, dkv, "LPOS", "big", "dup", "RANK", "2", "MAXLEN", "1500");
            both(redis, dkv, "LPOS", "big", "dup", "RANK", "-1", "MAXLEN", "1000", "COUNT", "0");
            both(redis, dkv, "LINSERT", "big", "BEFORE", "dup", "before-first-dup");
            both(redis, dkv, "LINSERT", "big", "AFTER", "no-such-pivot", "nope");
            for (int i = 1_000; i < 2_000; i += 250)
            {
                final String pivot = dkv.call("LINDEX", "big", Integer.toString(i)).substring(1);
                both(redis, dkv, "LINSERT", "big", i % 500 == 0 ? "AFTER" : "BEFORE", pivot, "ins" + i);
            }
            both(redis, dkv, "LREM", "big", "3", "dup");
            both(redis, dkv, "LREM", "big", "-2", "dup");
            both(redis, dkv, "LREM", "big", "0", "dup");
            both(redis, dkv, "LLEN", "big");
            slices(redis, dkv, "big", 3_000);
            both(redis, dkv, "LTRIM", "big", "100", "-100");
            both(redis, dkv, "LLEN", "big");
            slices(redis, dkv, "big", 2_800);
            both(redis, dkv, "LTRIM", "big", "37", "2500");
            both(redis, dkv, "LPOP", "big", "77");
            both(redis, dkv, "RPOP", "big", "123");
            both(redis, dkv, "LMPOP", "2", "nope", "big", "RIGHT", "COUNT", "50");
            for (int i = 0; i < 40; i++)
            {
                both(redis, dkv, "LMOVE", "big", "big2", i % 2 == 0 ? "LEFT" : "RIGHT", i % 3 == 0 ? "LEFT" : "RIGHT");
            }
            both(redis, dkv, "RPOPLPUSH", "big", "big2");
            both(redis, dkv, "LMOVE", "big", "big", "LEFT", "RIGHT");
            slices(redis, dkv, "big", 2_300);
            both(redis, dkv, "LRANGE", "big2", "0", "-1");
            both(redis, dkv, "LRANGE", "big", "0", "-1");
            both(redis, dkv, "LTRIM", "big", "1000", "1099");
            both(redis, dkv, "LRANGE", "big", "0", "-1");
            both(redis, dkv, "LPOP", "big", "60");
            both(redis, dkv, "RPOP", "big", "39");
            both(redis, dkv, "LRANGE", "big", "0", "-1");
            both(redis, dkv, "LTRIM", "big", "1", "0");
            assertEquals(":0", dkv.call("EXISTS", "big"));
            both(redis, dkv, "DEL", "big2");
            both(redis, dkv, "DBSIZE");
            assertTrue(scanKeys(dkv).isEmpty(), "no node of the lists is left as a key");
        }
    }

    /**
     * Where dkv differs from redis, by design: an element longer than a tree's leaf holds (128 KiB less its header) is
     * refused with an error and nothing is written, where redis takes up to 512 MB.
     */
    @Test
    void anElementLongerThanALeafHoldsIsRefusedAndNothingWritten() throws Exception
    {
        try (RawResp dkv = new RawResp(SERVERS.store().port()))
        {
            final String longElement = "z".repeat(200_000);
            dkv.call("DEL", "le");
            assertTrue(dkv.call("RPUSH", "le", "a", longElement).startsWith("-ERR a list's element takes at most"));
            assertEquals(":0", dkv.call("EXISTS", "le"));
            assertEquals(":2", dkv.call("RPUSH", "le", "a", "b"));
            assertTrue(dkv.call("LSET", "le", "0", longElement).startsWith("-ERR a list's element takes at most"));
            assertTrue(dkv.call("LINSERT", "le", "AFTER", "a", longElement).startsWith("-ERR a list's element"));
            assertEquals("*2[$a, $b]", dkv.call("LRANGE", "le", "0", "-1"));
            final String fits = "y".repeat(100_000);
            assertEquals(":3", dkv.call("RPUSH", "le", fits));
            assertEquals("$" + fits, dkv.call("LINDEX", "le", "-1"));
            assertEquals("+OK", dkv.call("LSET", "le", "0", fits));
            assertEquals(":4", dkv.call("LPUSH", "le", fits));
            assertEquals("*3[$" + fits + ", $" + fits + ", $b]", dkv.call("LRANGE", "le", "0", "2"));
            assertEquals(":1", dkv.call("DEL", "le"));
        }
    }

    /** LRANGE over a list of about {@code length} in overlapping slices from the head and the tail. */
    private static void slices(final RawResp redis, final RawResp dkv, final String key, final int length)
        throws IOException
    {
        for (int start = -length - 100; start < length + 100; start += 173)
        {
            both(redis, dkv, "LRANGE", key, Integer.toString(start), Integer.toString(start + 211));
            both(redis, dkv, "LRANGE", key, Integer.toString(start), "-" + (1 + start % 50 + 50));
        }
    }

    private static RawResp open(final int port, final int protocol) throws IOException
    {
        final RawResp client = new RawResp(port);
        if (protocol == 3)
        {
            client.call("HELLO", "3");
        }
        return client;
    }

    /** Each command (words parted by one space) to both, their replies compared as RespDifferentialTest does. */
    private static void compare(final RawResp redis, final RawResp dkv, final String... commands) throws IOException
    {
        for (final String line : commands)
        {
            final String[] command = line.split(" ");
            final String theirs = redis.call(command);
            final String ours = dkv.call(command);
            assertTrue(RespDifferentialTest.sameReply(command[0], theirs, ours),
                () -> line + ": redis answered " + theirs + ", dkv " + ours);
        }
    }

    private static void both(final RawResp redis, final RawResp dkv, final String... command) throws IOException
    {
        assertEquals(redis.call(command), dkv.call(command), String.join(" ", command));
    }

    private static TreeSet<String> scanKeys(final RawResp server, final String... options) throws IOException
    {
        return new TreeSet<>(ScanReplies.scanAll(server, List.of("SCAN"), options));
    }
}
