package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;


import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pub/sub across compute nodes: a message published through one node reaches the subscribers of every node, PUBLISH
 * counts them all, PUBSUB sees the pool, and a node joining or leaving loses no live node's subscription. Every
 * check follows an answer that promises it (a SUBSCRIBE answered is known to every node), so nothing here waits on
 * time, except for a node's leaving, which the others learn from the MetaServer.
 */
class PubSubAcrossNodesTest
{
    @RegisterExtension
    static final TwoComputeNodesExtension NODES = new TwoComputeNodesExtension();

    @Test
    void aMessagePublishedThroughOneNodeReachesTheSubscribersOfTheOther() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port());
            RawResp patterns = new RawResp(NODES.first().port());
            RawResp publisher = new RawResp(NODES.second().port()))
        {
            assertEquals("*3[$subscribe, $news.1, :1]", subscriber.call("SUBSCRIBE", "news.1"));
            assertEquals("*3[$psubscribe, $news.*, :1]", patterns.call("PSUBSCRIBE", "news.*"));
            assertEquals(":2", publisher.call("PUBLISH", "news.1", "hello"));
            assertEquals("*3[$message, $news.1, $hello]", subscriber.read());
            assertEquals("*4[$pmessage, $news.*, $news.1, $hello]", patterns.read());
            assertEquals(":1", publisher.call("PUBLISH", "news.2", "only the pattern"));
            assertEquals("*4[$pmessage, $news.*, $news.2, $only the pattern]", patterns.read());
            assertEquals(":0", publisher.call("PUBLISH", "sport", "nobody"));
        }
    }

    @Test
    void oneConnectionsMessagesArriveInTheOrderPublished() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port());
            RawResp publisher = new RawResp(NODES.second().port()))
        {
            assertEquals("*3[$subscribe, $ordered, :1]", subscriber.call("SUBSCRIBE", "ordered"));
            final int messages = 2_000;
            for (int i = 0; i < messages; i++)
            {
                publisher.send("PUBLISH", "ordered", Integer.toString(i));
            }
            for (int i = 0; i < messages; i++)
            {
                assertEquals(":1", publisher.read());
                assertEquals("*3[$message, $ordered, $" + i + "]", subscriber.read());
            }
        }
    }

    @Test
    void subscribersGoneAreNoLongerCounted() throws Exception
    {
        try (RawResp publisher = new RawResp(NODES.second().port()))
        {
            try (RawResp subscriber = new RawResp(NODES.first().port()))
            {
                subscriber.call("SUBSCRIBE", "leaving", "staying");
                assertEquals("*3[$subscribe, $staying, :2]", subscriber.read());
                assertEquals(":1", publisher.call("PUBLISH", "leaving", "one"));
                assertEquals("*3[$message, $leaving, $one]", subscriber.read());
                assertEquals("*3[$unsubscribe, $leaving, :1]", subscriber.call("UNSUBSCRIBE", "leaving"));
                assertEquals(":0", publisher.call("PUBLISH", "leaving", "two"));
                assertEquals(":1", publisher.call("PUBLISH", "staying", "three"));
                assertEquals("*3[$message, $staying, $three]", subscriber.read());
            }
            // the connection closed: its node tells the others when its loop sees it close
            MetaCluster.await("the closed subscriber is no longer counted",
                () -> call(publisher, "PUBLISH", "staying", "four").equals(":0"));
        }
    }

    @Test
    void pubsubIntrospectionCountsThePool() throws Exception
    {
        try (RawResp one = new RawResp(NODES.first().port());
            RawResp two = new RawResp(NODES.second().port());
            RawResp three = new RawResp(NODES.second().port());
            RawResp asking = new RawResp(NODES.first().port()))
        {
            one.call("SUBSCRIBE", "pool.a");
            two.call("SUBSCRIBE", "pool.a", "pool.b");
            two.read();
            three.call("PSUBSCRIBE", "pool.*");
            one.call("PSUBSCRIBE", "pool.*");
            one.call("SSUBSCRIBE", "pool.shard");
            assertEquals("*4[$pool.a, :2, $pool.b, :1]", asking.call("PUBSUB", "NUMSUB", "pool.a", "pool.b"));
            assertEquals(":1", asking.call("PUBSUB", "NUMPAT"));
            assertEquals("*2[$pool.a, $pool.b]", sorted(asking.call("PUBSUB", "CHANNELS", "pool.*")));
            assertEquals("*1[$pool.shard]", asking.call("PUBSUB", "SHARDCHANNELS"));
            assertEquals("*2[$pool.shard, :1]", asking.call("PUBSUB", "SHARDNUMSUB", "pool.shard"));
            assertEquals(":1", asking.call("SPUBLISH", "pool.shard", "s"));
            assertEquals("*3[$smessage, $pool.shard, $s]", one.read());
            // two channel subscriptions and two pattern subscriptions
            assertEquals(":4", asking.call("PUBLISH", "pool.a", "x"));
        }
    }

    @Test
    void keyspaceNotificationsOfAWriteThroughOneNodeReachSubscribersOfTheOther() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port());
            RawResp writer = new RawResp(NODES.second().port()))
        {
            assertEquals("+OK", writer.call("CONFIG", "SET", "notify-keyspace-events", "K$"));
            try
            {
                subscriber.call("SUBSCRIBE", "__keyspace@0__:watched");
                writer.call("SET", "watched", "v");
                assertEquals("*3[$message, $__keyspace@0__:watched, $set]", subscriber.read());
            }
            finally
            {
                writer.call("CONFIG", "SET", "notify-keyspace-events", "");
            }
        }
    }

    @Test
    void aResp3SubscriberGetsPushesAndMayRunCommands() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port());
            RawResp publisher = new RawResp(NODES.second().port()))
        {
            subscriber.call("HELLO", "3");
            assertEquals(">3[$subscribe, $pushed, :1]", subscriber.call("SUBSCRIBE", "pushed"));
            assertEquals("$nil".replace("$nil", "_"), subscriber.call("GET", "pubsub-no-such-key"));
            assertEquals(":1", publisher.call("PUBLISH", "pushed", "m"));
            assertEquals(">3[$message, $pushed, $m]", subscriber.read());
        }
    }

    @Test
    void aResp2SubscriberMayRunOnlyPubSubCommands() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port()))
        {
            subscriber.call("SUBSCRIBE", "modal");
            assertEquals("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are " +
                "allowed in this context", subscriber.call("GET", "k"));
            assertEquals("*2[$pong, $]", subscriber.call("PING"));
            assertEquals("+RESET", subscriber.call("RESET"));
            assertEquals("+PONG", subscriber.call("PING"));
        }
    }

    @Test
    void aNodeJoiningMeetsTheSubscriptionsOfThePoolAndThePoolMeetsItsOwn() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port()))
        {
            subscriber.call("SUBSCRIBE", "joined");
            try (ComputeNode third = NODES.nodes().another(NODES.nodes().secondId() + 10);
                RawResp publisher = new RawResp(third.port());
                RawResp late = new RawResp(third.port());
                RawResp old = new RawResp(NODES.second().port()))
            {
                assertEquals(":1", publisher.call("PUBLISH", "joined", "from the new node"));
                assertEquals("*3[$message, $joined, $from the new node]", subscriber.read());
                late.call("SUBSCRIBE", "joined");
                assertEquals(":2", old.call("PUBLISH", "joined", "to both"));
                assertEquals("*3[$message, $joined, $to both]", subscriber.read());
                assertEquals("*3[$message, $joined, $to both]", late.read());
            }
            try (RawResp publisher = new RawResp(NODES.second().port()))
            {
                // the third node left: its subscriber is gone with it, the first node's is not
                MetaCluster.await("the node that left is no longer counted",
                    () -> call(publisher, "PUBLISH", "joined", "after").equals(":1"));
            }
        }
    }

    /**
     * With asynchronous commands on, a PUBLISH whose channel has subscribers on a peer calls it on a store thread, a
     * step every later request of the connection waits for, so the loop waits on no peer; one whose channel no peer
     * has delivers on the loop. The replies and the messages keep the order published. PUBSUB, which asks every
     * peer, is such a step too, and so is a SUBSCRIBE of a topic new to the node, which tells every peer: a message
     * published through a peer after its answer reaches it.
     */
    @Test
    void aPublishPubsubOrSubscribeThatCallsPeersIsAStepOnAStoreThread() throws Exception
    {
        try (RawResp subscriber = new RawResp(NODES.first().port()))
        {
            subscriber.call("SUBSCRIBE", "stepped");
            try (ComputeNode third = NODES.nodes().another(NODES.nodes().secondId() + 20, "on");
                RawResp publisher = new RawResp(third.port()))
            {
                assertEquals(":1", publisher.call("PUBLISH", "stepped", "first"));
                assertEquals("*3[$message, $stepped, $first]", subscriber.read());
                final long before = publisher.storeThreadSteps();
                publisher.sendRaw(RawResp.encodeAll(java.util.List.of(new String[] {"PUBLISH", "stepped", "a"},
                    new String[] {"PUBLISH", "stepped", "b"}, new String[] {"PUBLISH", "nobody-here", "x"},
                    new String[] {"PING"})));
                assertEquals(java.util.List.of(":1", ":1", ":0", "+PONG"),
                    java.util.List.of(publisher.read(), publisher.read(), publisher.read(), publisher.read()));
                assertEquals(2, publisher.storeThreadSteps() - before, "the two that called the first node");
                assertEquals("*3[$message, $stepped, $a]", subscriber.read());
                assertEquals("*3[$message, $stepped, $b]", subscriber.read());
                final long beforeNumsub = publisher.storeThreadSteps();
                assertEquals("*2[$stepped, :1]", publisher.call("PUBSUB", "NUMSUB", "stepped"));
                assertEquals(1, publisher.storeThreadSteps() - beforeNumsub, "PUBSUB asks its peers there too");

                try (RawResp near = new RawResp(third.port());
                    RawResp second = new RawResp(third.port());
                    RawResp far = new RawResp(NODES.first().port()))
                {
                    final long beforeSubscribe = publisher.storeThreadSteps();
                    assertEquals("*3[$subscribe, $told, :1]", near.call("SUBSCRIBE", "told"));
                    assertEquals(1, publisher.storeThreadSteps() - beforeSubscribe, "new to the node: told there");
                    assertEquals(":1", far.call("PUBLISH", "told", "from afar"), "answered once every peer knew");
                    assertEquals("*3[$message, $told, $from afar]", near.read());
                    final long beforeSecond = publisher.storeThreadSteps();
                    assertEquals("*3[$subscribe, $told, :1]", second.call("SUBSCRIBE", "told"));
                    assertEquals(0, publisher.storeThreadSteps() - beforeSecond, "known to the peers: on the loop");
                    assertEquals(":2", far.call("PUBLISH", "told", "to both"));
                    assertEquals("*3[$message, $told, $to both]", near.read());
                    assertEquals("*3[$message, $told, $to both]", second.read());
                }
            }
        }
    }

    private static String call(final RawResp resp, final String... args)
    {
        try
        {
            return resp.call(args);
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static String sorted(final String array)
    {
        final String inner = array.substring(array.indexOf('[') + 1, array.length() - 1);
        final String[] items = inner.split(", ");
        java.util.Arrays.sort(items);
        return array.substring(0, array.indexOf('[') + 1) + String.join(", ", items) + "]";
    }
}
