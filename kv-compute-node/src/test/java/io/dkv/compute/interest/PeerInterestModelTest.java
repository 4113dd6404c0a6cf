package io.dkv.compute.interest;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The numbered changes and hand-overs by which a node tells a peer its topics (kv-compute-node/README.md, "Compute
 * nodes meet each other", rules 2 and 3), on random histories: a node adds and removes topics, each change sent as a
 * call that may arrive late, out of order or twice, and hand-overs built at random points arrive late too. Whenever a
 * topic's last change has arrived, the peer must hold it as the node has it; once everything arrived, it must hold
 * exactly the node's topics. A peer that applies whatever arrives last (no numbers) must fail.
 */
class PeerInterestModelTest
{
    private static final long PEER = 7;
    private static final int TOPICS = 4;
    private static final int STEPS = 60;
    private static final int HISTORIES = 3_000;

    /** What a peer holds of a node, as a publisher asks it. */
    private interface View
    {
        void change(Topic topic, boolean added, long number);

        void replace(ByteBuffer handedOver);

        boolean holds(Topic topic);
    }

    /** The real one. */
    private static final class Numbered implements View
    {
        private final PeerInterest interest = new PeerInterest();

        public void change(final Topic topic, final boolean added, final long number)
        {
            interest.change(PEER, topic, added, number);
        }

        public void replace(final ByteBuffer handedOver)
        {
            Advertised.decode(PEER, handedOver, interest);
        }

        public boolean holds(final Topic topic)
        {
            final Set<Long> peers = new HashSet<>();
            interest.peersFor(topic.kind(), topic.name(), peers);
            return peers.contains(PEER);
        }
    }

    /** The broken variant: the last message to arrive decides. */
    private static final class LastArrivalWins implements View
    {
        private final Set<Topic> held = new HashSet<>();

        public void change(final Topic topic, final boolean added, final long number)
        {
            if (added)
            {
                held.add(topic);
            }
            else
            {
                held.remove(topic);
            }
        }

        public void replace(final ByteBuffer handedOver)
        {
            final PeerInterest scratch = new PeerInterest();
            Advertised.decode(PEER, handedOver, scratch);
            held.clear();
            for (int i = 0; i < TOPICS; i++)
            {
                final Set<Long> peers = new HashSet<>();
                final Topic topic = topic(i);
                scratch.peersFor(topic.kind(), topic.name(), peers);
                if (!peers.isEmpty())
                {
                    held.add(topic);
                }
            }
        }

        public boolean holds(final Topic topic)
        {
            return held.contains(topic);
        }
    }

    /** A message on its way: a change (topic set) or a hand-over. */
    private record Message(Topic topic, boolean added, long number, byte[] handedOver)
    {
    }

    @Test
    void thePeerHoldsEachTopicAsTheNodeHasItOnceItsLastChangeArrived()
    {
        final Random random = new Random(38_001);
        for (int history = 0; history < HISTORIES; history++)
        {
            assertNull(run(new Numbered(), random.nextLong()), "history " + history);
        }
    }

    @Test
    void aPeerThatAppliesWhateverArrivesLastIsCaught()
    {
        final Random random = new Random(38_001);
        String found = null;
        for (int history = 0; history < HISTORIES && found == null; history++)
        {
            found = run(new LastArrivalWins(), random.nextLong());
        }
        assertNotNull(found, "no history told the broken variant apart");
    }

    /** @return the first violation of the history drawn from {@code seed}, or null. */
    private static String run(final View peer, final long seed)
    {
        final Random random = new Random(seed);
        final Advertised node = new Advertised();
        final List<Message> inFlight = new ArrayList<>();
        final Map<Topic, Long> lastChange = new HashMap<>();
        final Set<Long> arrived = new HashSet<>();
        for (int step = 0; step < STEPS || !inFlight.isEmpty(); step++)
        {
            final int action = random.nextInt(10);
            if (step < STEPS && action < 4)
            {
                final Topic topic = topic(random.nextInt(TOPICS));
                final boolean add = !node.has(topic);
                final long number = add ? node.add(topic) : node.remove(topic);
                lastChange.put(topic, number);
                inFlight.add(new Message(topic, add, number, null));
            }
            else if (step < STEPS && action < 5)
            {
                inFlight.add(new Message(null, false, 0, node.encode()));
            }
            else if (!inFlight.isEmpty())
            {
                final int at = random.nextInt(inFlight.size());
                final Message message = inFlight.get(at);
                if (random.nextInt(8) != 0 || step >= STEPS)
                {
                    // delivered; now and then delivered twice (a retried call)
                    inFlight.remove(at);
                }
                if (message.handedOver() != null)
                {
                    peer.replace(ByteBuffer.wrap(message.handedOver()));
                }
                else
                {
                    peer.change(message.topic(), message.added(), message.number());
                    arrived.add(message.number());
                }
            }
            for (final Map.Entry<Topic, Long> last : lastChange.entrySet())
            {
                if (arrived.contains(last.getValue()) && peer.holds(last.getKey()) != node.has(last.getKey()))
                {
                    return "seed " + seed + " step " + step + ": the peer holds " + last.getKey() + " " +
                        peer.holds(last.getKey()) + " after its last change " + last.getValue() + " arrived";
                }
            }
        }
        for (int i = 0; i < TOPICS; i++)
        {
            if (peer.holds(topic(i)) != node.has(topic(i)))
            {
                return "seed " + seed + ": at the end the peer holds " + topic(i) + " " + peer.holds(topic(i));
            }
        }
        return null;
    }

    private static Topic topic(final int i)
    {
        return new Topic(i % 2 == 0 ? Topic.CHANNEL : Topic.KEY, ("t" + i).getBytes(StandardCharsets.US_ASCII));
    }
}
