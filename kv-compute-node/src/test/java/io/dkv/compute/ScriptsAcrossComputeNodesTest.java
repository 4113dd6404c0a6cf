package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scripts and functions are the store's, not a node's: a script loaded through one compute node runs through the
 * other, a library loaded through one is called through the other, and a flush or delete through either is seen by
 * both. A script that loops is stopped by SCRIPT KILL (FUNCTION KILL for a function) from another connection of the
 * same event loop once it has run past busy-reply-threshold, which meanwhile has that node (and that node only)
 * answer BUSY; a killed script writes nothing. The test waits for states it observes (BUSY answered), never for
 * times.
 */
class ScriptsAcrossComputeNodesTest
{
    private static final String LIBRARY = "#!lua name=shared\n" +
        "redis.register_function('shared_incr', function(keys, args) return redis.call('incr', keys[1]) end)\n" +
        "redis.register_function('shared_spin', function(keys, args) redis.call('set', keys[1], 'x') " +
        "while true do end end)";

    @RegisterExtension
    static final TwoComputeNodesExtension NODES = new TwoComputeNodesExtension();

    @Test
    void aScriptLoadedThroughOneNodeRunsThroughTheOther() throws Exception
    {
        try (RawResp first = new RawResp(NODES.first().port());
            RawResp second = new RawResp(NODES.second().port()))
        {
            final String sha = first.call("SCRIPT", "LOAD", "return redis.call('incrby', KEYS[1], ARGV[1])");
            assertEquals(41, sha.length(), sha);
            assertEquals("*2[:1, :0]", second.call("SCRIPT", "EXISTS", sha.substring(1), "0".repeat(40)));
            assertEquals(":5", second.call("EVALSHA", sha.substring(1), "1", "across-n", "5"));
            assertEquals(":7", first.call("EVALSHA", sha.substring(1), "1", "across-n", "2"));
            assertEquals("+OK", second.call("SCRIPT", "FLUSH"));
            assertEquals("-NOSCRIPT No matching script. Please use EVAL.",
                first.call("EVALSHA", sha.substring(1), "1", "across-n", "1"));
            assertEquals(":8", first.call("EVAL", "return redis.call('incrby', KEYS[1], ARGV[1])", "1", "across-n",
                "1"), "EVAL keeps the script again");
            assertEquals(":9", second.call("EVALSHA", sha.substring(1), "1", "across-n", "1"));
        }
    }

    @Test
    void aLibraryLoadedThroughOneNodeIsCalledThroughTheOther() throws Exception
    {
        try (RawResp first = new RawResp(NODES.first().port());
            RawResp second = new RawResp(NODES.second().port()))
        {
            assertEquals("$shared", first.call("FUNCTION", "LOAD", "REPLACE", LIBRARY));
            assertEquals(":1", second.call("FCALL", "shared_incr", "1", "across-f"));
            assertEquals(":2", first.call("FCALL", "shared_incr", "1", "across-f"));
            assertTrue(second.call("FUNCTION", "LIST", "LIBRARYNAME", "shared").contains("$shared_incr"));
            assertEquals("+OK", second.call("FUNCTION", "DELETE", "shared"));
            assertEquals("-ERR Function not found", first.call("FCALL", "shared_incr", "1", "across-f"));
            assertEquals("*0[]", first.call("FUNCTION", "LIST", "LIBRARYNAME", "shared"));
        }
    }

    @Test
    void aDumpThroughOneNodeRestoresThroughTheOther() throws Exception
    {
        try (RawResp first = new RawResp(NODES.first().port());
            RawResp second = new RawResp(NODES.second().port()))
        {
            assertEquals("$shared", first.call("FUNCTION", "LOAD", "REPLACE", LIBRARY));
            final byte[] payload = first.callBytes("FUNCTION", "DUMP");
            assertEquals("+OK", second.call("FUNCTION", "FLUSH"));
            assertEquals("-ERR Function not found", first.call("FCALL", "shared_incr", "1", "across-d"));
            assertEquals("+OK", second.call("FUNCTION".getBytes(), "RESTORE".getBytes(), payload));
            assertEquals(":1", first.call("FCALL", "shared_incr", "1", "across-d"));
            assertEquals("-ERR Library shared already exists",
                second.call("FUNCTION".getBytes(), "RESTORE".getBytes(), payload));
            assertEquals("+OK", second.call("FUNCTION".getBytes(), "RESTORE".getBytes(), payload,
                "REPLACE".getBytes()));
            assertEquals(":2", second.call("FCALL", "shared_incr", "1", "across-d"));
        }
    }

    /** A script's push wakes a BLPOP on the other node, and its PUBLISH reaches a subscriber there: once committed. */
    @Test
    void aScriptsWritesAndPublishesReachOtherNodesOnceCommitted() throws Exception
    {
        try (RawResp blocked = new RawResp(NODES.second().port());
            RawResp subscriber = new RawResp(NODES.second().port());
            RawResp scripts = new RawResp(NODES.first().port()))
        {
            assertEquals("*3[$subscribe, $script-news, :1]", subscriber.call("SUBSCRIBE", "script-news"));
            blocked.send("BLPOP", "script-queue", "0");
            assertEquals(":1", scripts.call("EVAL", "redis.call('publish', 'script-news', 'pushed') " +
                "return redis.call('lpush', KEYS[1], 'job')", "1", "script-queue"));
            assertEquals("*2[$script-queue, $job]", blocked.read(), "taken whether it blocked before or after");
            assertEquals("*3[$message, $script-news, $pushed]", subscriber.read());
        }
    }

    /**
     * Two connections of one node (its one event loop): the first runs a script that writes and then loops; the
     * second, served meanwhile, gets BUSY once the script has run past the threshold, and SCRIPT KILL stops it; the
     * other node answers as ever all along. The same for a function and FUNCTION KILL.
     */
    @Test
    void aLoopingScriptIsKilledFromAnotherConnectionAndWritesNothing() throws Exception
    {
        try (RawResp runner = new RawResp(NODES.first().port());
            RawResp other = new RawResp(NODES.first().port());
            RawResp elsewhere = new RawResp(NODES.second().port()))
        {
            assertEquals("+OK", other.call("CONFIG", "SET", "busy-reply-threshold", "20"));
            try
            {
                runner.send("EVAL", "redis.call('set', KEYS[1], 'written') while true do end", "1", "killed-key");
                awaitBusy(other, "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN " +
                    "NOSAVE.");
                assertEquals("+PONG", elsewhere.call("PING"), "only the node running the script is busy");
                assertEquals("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN " +
                    "NOSAVE.", other.call("FUNCTION", "KILL"));
                assertEquals("+OK", other.call("SCRIPT", "KILL"));
                final String killed = runner.read();
                assertTrue(killed.startsWith("-ERR Script killed by user with SCRIPT KILL... script: "), killed);
                assertEquals("$nil", other.call("GET", "killed-key"), "a killed script writes nothing");
                assertEquals("-NOTBUSY No scripts in execution right now.", other.call("SCRIPT", "KILL"));

                assertEquals("$shared", other.call("FUNCTION", "LOAD", "REPLACE", LIBRARY));
                runner.send("FCALL", "shared_spin", "1", "killed-key");
                awaitBusy(other, "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or " +
                    "SHUTDOWN NOSAVE.");
                assertEquals("+OK", other.call("FUNCTION", "KILL"));
                assertTrue(runner.read().startsWith("-ERR Script killed by user with SCRIPT KILL... script: " +
                    "shared_spin, on @user_function:"));
                assertEquals("$nil", other.call("GET", "killed-key"));
                assertEquals("+PONG", runner.call("PING"), "the killed script's connection goes on");
            }
            finally
            {
                other.call("CONFIG", "SET", "busy-reply-threshold", "5000");
            }
        }
    }

    /** Ask a command until it is answered BUSY: the script has run past the threshold. */
    private static void awaitBusy(final RawResp resp, final String busy) throws Exception
    {
        String reply = resp.call("GET", "killed-key");
        while (!reply.equals(busy))
        {
            assertEquals("$nil", reply, "before it is busy, the node serves others, the script's writes unseen");
            Thread.onSpinWait();
            reply = resp.call("GET", "killed-key");
        }
    }
}
