package io.dkv.compute.command;

import io.dkv.compute.interest.Topic;
import io.dkv.client.keyspace.KeyPattern;
import io.dkv.compute.pubsub.PubSub;
import io.dkv.compute.pubsub.PushFrames;
import io.dkv.compute.pubsub.Subscriber;
import io.dkv.compute.resp.RespReplies;
import io.dkv.compute.store.KeyStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.dkv.compute.command.CommandTable.spec;

/**
 * SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB, with redis
 * 7's replies, across every compute node of the pool ({@link PubSub}); and RESET, which ends a connection's
 * subscriptions among the rest of its state.
 */
final class PubSubCommands
{
    /** What a RESP2 connection in subscribed mode may run (redis's processCommand). */
    private static final Set<String> SUBSCRIBED_MODE = Set.of("ping", "subscribe", "ssubscribe", "unsubscribe",
        "sunsubscribe", "psubscribe", "punsubscribe", "quit", "reset");
    /**
     * Not queued inside MULTI: EXEC's transaction may run its commands more than once (a conflict runs them again),
     * and a subscription made cannot be taken back. (PUBLISH is queued: it publishes once EXEC committed.)
     */
    private static final Set<String> NOT_IN_MULTI = Set.of("subscribe", "ssubscribe", "unsubscribe",
        "sunsubscribe", "psubscribe", "punsubscribe");
    private static final Set<String> SUBSCRIBING = Set.of("subscribe", "ssubscribe", "psubscribe", "unsubscribe",
        "sunsubscribe", "punsubscribe");
    private static final String[] HELP = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help."};

    private final CommandEnvironment environment;
    private final PubSub pubsub;
    private final KeyStore store;
    private final StoreThreads storeThreads;

    /**
     * @param store        the store outside transactions: where a PUBLISH may be a step ({@link Session#mayAwait}).
     * @param storeThreads where a PUBLISH that calls peers runs, so that the loop waits on no peer's answer.
     */
    PubSubCommands(final CommandEnvironment environment, final KeyStore store, final StoreThreads storeThreads)
    {
        this.environment = environment;
        this.pubsub = environment.pubsub();
        this.store = store;
        this.storeThreads = storeThreads;
    }

    List<CommandSpec> commands()
    {
        return List.of(
            spec("subscribe", -2, (session, args, out) -> subscribe(session, args, out, Topic.CHANNEL)),
            spec("psubscribe", -2, (session, args, out) -> subscribe(session, args, out, Topic.PATTERN)),
            spec("ssubscribe", -2, (session, args, out) -> subscribe(session, args, out, Topic.SHARD)),
            spec("unsubscribe", -1, (session, args, out) -> unsubscribe(session, args, out, Topic.CHANNEL)),
            spec("punsubscribe", -1, (session, args, out) -> unsubscribe(session, args, out, Topic.PATTERN)),
            spec("sunsubscribe", -1, (session, args, out) -> unsubscribe(session, args, out, Topic.SHARD)),
            spec("publish", 3, (session, args, out) -> publish(session, args, out, false)),
            spec("spublish", 3, (session, args, out) -> publish(session, args, out, true)),
            spec("reset", 1, this::reset),
            new CommandSpec("pubsub", -2, false, null, Map.of(
                "channels", spec("pubsub|channels", -2,
                    askingPeers((session, args, out) -> channels(args, out, Topic.CHANNEL))),
                "shardchannels", spec("pubsub|shardchannels", -2,
                    askingPeers((session, args, out) -> channels(args, out, Topic.SHARD))),
                "numsub", spec("pubsub|numsub", -2,
                    askingPeers((session, args, out) -> numsub(args, out, Topic.CHANNEL))),
                "shardnumsub", spec("pubsub|shardnumsub", -2,
                    askingPeers((session, args, out) -> numsub(args, out, Topic.SHARD))),
                "numpat", spec("pubsub|numpat", 2, askingPeers(
                    (session, args, out) -> RespReplies.integer(out, pubsub.topics(Topic.PATTERN).size()))),
                "help", spec("pubsub|help", 2, (session, args, out) -> help(out)))));
    }

    /** @return the error of a command a RESP2 connection in subscribed mode may not run, or null when it may. */
    static String subscribedModeRefusal(final Session session, final CommandSpec spec)
    {
        if (session.protocol() != 2 || session.subscriber() == null || !session.subscriber().subscribed() ||
            SUBSCRIBED_MODE.contains(spec.name()))
        {
            return null;
        }
        return "ERR Can't execute '" + spec.name() + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / " +
            "RESET are allowed in this context";
    }

    /** @return true for a command whose answers are pushes, which CLIENT REPLY OFF does not silence. */
    static boolean pushes(final byte[] name)
    {
        return name.length >= 9 && name.length <= 12 && SUBSCRIBING.contains(CommandTable.lowerCase(name));
    }

    /**
     * @return a PUBSUB subcommand, which asks every peer and waits for their answers: where the connection allows a
     * step, on a store thread, a step every later request of the connection waits for.
     */
    private CommandHandler askingPeers(final CommandHandler handler)
    {
        return (session, args, out) ->
        {
            if (session.mayAwait(store) && pubsub.asksPeers())
            {
                storeThreads.offload(session, null, reply -> handler.execute(session, args, reply));
                return;
            }
            handler.execute(session, args, out);
        };
    }

    /** @return true for a command dkv does not queue inside MULTI. */
    static boolean notInMulti(final String name)
    {
        return NOT_IN_MULTI.contains(name);
    }

    private Subscriber subscriber(final Session session)
    {
        Subscriber subscriber = session.subscriber();
        if (subscriber == null)
        {
            subscriber = new Subscriber(session.id(), session.outlet(), session.outputWatch());
            subscriber.protocol(session.protocol());
            session.subscriber(subscriber);
        }
        return subscriber;
    }

    /**
     * PUBLISH and SPUBLISH; inside EXEC's transaction, which a conflict may run again, the receivers are counted now
     * and the message published once the transaction committed. One whose channel has subscribers on peers calls each
     * of them and waits for its count: where the connection allows a step, on a store thread, a step every later
     * request of the connection waits for (its messages still go out in the order published).
     */
    private void publish(final Session session, final byte[][] args, final ByteBuf out, final boolean shard)
    {
        if (session.executing())
        {
            RespReplies.integer(out, pubsub.receivers(shard, args[1]));
            session.afterCommit(() -> pubsub.publish(shard, args[1], args[2]));
            return;
        }
        if (session.mayAwait(store) && pubsub.callsPeers(shard, args[1]))
        {
            storeThreads.offload(session, null, reply -> RespReplies.integer(reply,
                pubsub.publish(shard, args[1], args[2])));
            return;
        }
        RespReplies.integer(out, pubsub.publish(shard, args[1], args[2]));
    }

    private void subscribe(final Session session, final byte[][] args, final ByteBuf out, final byte kind)
    {
        final Subscriber subscriber = subscriber(session);
        if (session.mayAwait(store) && pubsub.asksPeers() && newHere(args, kind))
        {
            subscribeTelling(session, subscriber, args, kind);
            return;
        }
        for (int i = 1; i < args.length; i++)
        {
            pubsub.subscribe(subscriber, new Topic(kind, args[i]));
            PushFrames.confirmation(out, confirmation(kind, true), args[i], subscriber.countFor(kind),
                session.protocol());
        }
    }

    private boolean newHere(final byte[][] args, final byte kind)
    {
        for (int i = 1; i < args.length; i++)
        {
            if (!pubsub.hasHere(new Topic(kind, args[i])))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * A SUBSCRIBE of a topic new to the node, which tells every peer of it and waits for their answers: subscribed
     * here on the loop, its messages held, the peers told on a store thread, a step every later request of the
     * connection waits for; its confirmations then go out, and the messages held after them.
     */
    private void subscribeTelling(final Session session, final Subscriber subscriber, final byte[][] args,
        final byte kind)
    {
        subscriber.hold();
        final ByteBuf confirmations = Unpooled.buffer();
        final List<Topic> added = new ArrayList<>();
        for (int i = 1; i < args.length; i++)
        {
            final Topic topic = new Topic(kind, args[i]);
            if (pubsub.subscribeHere(subscriber, topic))
            {
                added.add(topic);
            }
            PushFrames.confirmation(confirmations, confirmation(kind, true), args[i], subscriber.countFor(kind),
                session.protocol());
        }
        final CompletableFuture<Boolean> told = storeThreads.supply(() ->
        {
            added.forEach(pubsub::tellSubscribed);
            return Boolean.TRUE;
        });
        session.await(told, (ignored, failure, out) ->
        {
            // a peer that failed to answer was counted by the telling, which the mesh's greeting mends
            out.writeBytes(confirmations);
            confirmations.release();
            subscriber.release(out);
        }, null);
    }

    private void unsubscribe(final Session session, final byte[][] args, final ByteBuf out, final byte kind)
    {
        final Subscriber subscriber = subscriber(session);
        final String what = confirmation(kind, false);
        if (args.length == 1)
        {
            final Topic[] topics = pubsub.topicsOf(subscriber, kind);
            if (topics.length == 0)
            {
                PushFrames.confirmation(out, what, null, subscriber.countFor(kind), session.protocol());
            }
            for (final Topic topic : topics)
            {
                pubsub.unsubscribe(subscriber, topic);
                PushFrames.confirmation(out, what, topic.name(), subscriber.countFor(kind), session.protocol());
            }
            return;
        }
        for (int i = 1; i < args.length; i++)
        {
            pubsub.unsubscribe(subscriber, new Topic(kind, args[i]));
            PushFrames.confirmation(out, what, args[i], subscriber.countFor(kind), session.protocol());
        }
    }

    private static String confirmation(final byte kind, final boolean subscribe)
    {
        final String prefix = kind == Topic.PATTERN ? "p" : kind == Topic.SHARD ? "s" : "";
        return prefix + (subscribe ? "subscribe" : "unsubscribe");
    }

    private void channels(final byte[][] args, final ByteBuf out, final byte kind)
    {
        if (args.length > 3)
        {
            RespReplies.error(out, "ERR unknown subcommand or wrong number of arguments for '" +
                Errors.text128(args[1]) + "'. Try " + Errors.text(args[0]).toUpperCase() + " HELP.");
            return;
        }
        final KeyPattern pattern = args.length == 3 ? KeyPattern.of(args[2]) : null;
        final List<byte[]> names = new ArrayList<>();
        for (final Topic topic : pubsub.topics(kind).keySet())
        {
            if (pattern == null || pattern.matches(topic.name()))
            {
                names.add(topic.name());
            }
        }
        RespReplies.arrayHeader(out, names.size());
        names.forEach(name -> RespReplies.bulk(out, name));
    }

    private void numsub(final byte[][] args, final ByteBuf out, final byte kind)
    {
        final Map<Topic, Long> topics = args.length > 2 ? pubsub.topics(kind) : Map.of();
        RespReplies.arrayHeader(out, (args.length - 2) * 2);
        for (int i = 2; i < args.length; i++)
        {
            RespReplies.bulk(out, args[i]);
            RespReplies.integer(out, topics.getOrDefault(new Topic(kind, args[i]), 0L));
        }
    }

    private static void help(final ByteBuf out)
    {
        RespReplies.arrayHeader(out, HELP.length);
        for (final String line : HELP)
        {
            RespReplies.simple(out, line);
        }
    }

    /** RESET: out of MULTI and subscriptions, nameless, RESP2, and unauthenticated where a password is required. */
    private void reset(final Session session, final byte[][] args, final ByteBuf out)
    {
        final Subscriber subscriber = session.subscriber();
        if (subscriber != null)
        {
            pubsub.gone(subscriber);
        }
        if (session.inMulti())
        {
            session.multi().end();
        }
        session.multi().unwatch();
        session.name(null);
        session.protocol(2);
        if (environment.requirePass() != null)
        {
            session.deauthenticate();
        }
        RespReplies.simple(out, "RESET");
    }
}
