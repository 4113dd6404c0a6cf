package io.dkv.compute.autoscale;

import io.dkv.compute.autoscale.ManagedNode.State;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The autoscaler's duty cycle over nodes that are stand-ins (their state and load set by the test) and a clock the
 * test moves: what it starts, drains, replaces and kills, and when.
 */
class AutoscalerTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final List<FakeNode> launched = new ArrayList<>();
    private final List<String> events = new ArrayList<>();

    private AutoscalerContext context(final int min, final int max)
    {
        return new AutoscalerContext()
            .minNodes(min)
            .maxNodes(max)
            .metric(ScalingMetric.OPS)
            .target(1_000)
            .tolerance(0.1)
            .syncPeriodMs(15_000)
            .upWindowMs(0)
            .downWindowMs(300_000)
            .startTimeoutMs(60_000)
            .drainTimeoutMs(30_000)
            .nanoClock(clock)
            .events(events::add)
            .launcher(ordinal ->
            {
                final FakeNode node = new FakeNode(ordinal);
                launched.add(node);
                return node;
            })
            .loadReader(node -> ((FakeNode)node).metrics());
    }

    private void advance(final Autoscaler autoscaler, final long ms)
    {
        clock.advance(TimeUnit.MILLISECONDS.toNanos(ms));
        autoscaler.doWork();
    }

    @Test
    void itStartsTheMinimumAndScalesUpWithTheLoadAtTheNextSync()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(2, 6)))
        {
            assertEquals(2, launched.size());
            assertEquals(2, autoscaler.running());
            launched.forEach(node -> node.state = State.SERVING);
            advance(autoscaler, 1);
            assertEquals(2, autoscaler.serving());

            launched.forEach(node -> node.ops = 2_500);
            advance(autoscaler, 14_000);
            assertEquals(2, launched.size(), "no decision before the sync period has passed");
            advance(autoscaler, 1_000);
            assertEquals(5, launched.size(), "ceil(2 x 2.5) = 5");
            assertEquals(1, autoscaler.scaleUps());
            assertTrue(events.stream().anyMatch(line -> line.contains("2 -> 5 compute nodes") &&
                line.contains("ops/s per node 2,500")), events::toString);
        }
    }

    @Test
    void itDrainsTheNewestOnlyAfterTheScaleDownWindow()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(1, 4)))
        {
            launched.getFirst().state = State.SERVING;
            launched.getFirst().ops = 3_000;
            advance(autoscaler, 15_000);
            assertEquals(3, launched.size());
            launched.forEach(node -> node.state = State.SERVING);
            launched.forEach(node -> node.ops = 100);
            // the recommendation of 3 made at 15 s holds through 315 s, the end of its 300 s window
            for (int i = 0; i < 20; i++)
            {
                advance(autoscaler, 15_000);
                assertEquals(3, autoscaler.running(), "held up by the recommendation of 3 at " + (i + 2) * 15 + " s");
            }
            advance(autoscaler, 15_000);
            assertEquals(1, autoscaler.running(), "the window of 300 s has passed");
            assertEquals(State.SERVING, launched.get(0).state, "the oldest stays");
            assertTrue(launched.get(1).drained && launched.get(2).drained, "the newest are drained");
            launched.get(1).state = State.EXITED;
            launched.get(2).state = State.EXITED;
            advance(autoscaler, 1);
            assertEquals(1, autoscaler.nodes().size());
            assertEquals(0, autoscaler.lost(), "drained nodes that exit are not losses");
        }
    }

    @Test
    void aNodeThatDiesIsReportedAndReplacedToKeepTheMinimum()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(2, 4)))
        {
            launched.forEach(node -> node.state = State.SERVING);
            advance(autoscaler, 1);
            launched.getFirst().state = State.EXITED;
            advance(autoscaler, 1);
            assertEquals(3, launched.size(), "a replacement started at once, not at the next sync");
            assertEquals(1, autoscaler.lost());
            assertTrue(events.stream().anyMatch(line -> line.contains("fake 0 exited while serving: killed by test")),
                events::toString);
        }
    }

    @Test
    void aNodeWhoseLoadCannotBeReadCountsAsMissing()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(2, 4)))
        {
            launched.forEach(node -> node.state = State.SERVING);
            launched.get(0).ops = 1_500;
            launched.get(1).unreadable = true;
            advance(autoscaler, 15_000);
            // 1.5x with the other counted idle is 0.75x: the other way, so nothing changes
            assertEquals(2, autoscaler.running());
            assertEquals(1, autoscaler.lastDecision().missing());
        }
    }

    @Test
    void aNodeThatDoesNotServeInTimeIsKilledAndReplaced()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(1, 4)))
        {
            advance(autoscaler, 60_000);
            assertEquals(1, launched.size());
            advance(autoscaler, 1);
            assertTrue(launched.getFirst().killed, "did not serve within the start timeout");
            assertEquals(2, launched.size(), "replaced");
            assertTrue(events.stream().anyMatch(line -> line.contains("did not serve within 60000 ms")),
                events::toString);
        }
    }

    @Test
    void aNodeWhoseDrainHangsIsKilledAfterTheDrainTimeout()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(1, 4).downWindowMs(0)))
        {
            launched.getFirst().state = State.SERVING;
            launched.getFirst().ops = 3_000;
            advance(autoscaler, 15_000);
            assertEquals(3, launched.size());
            launched.forEach(node ->
            {
                node.state = State.SERVING;
                node.ops = 100;
                node.hangsInDrain = true;
            });
            launched.getFirst().hangsInDrain = false;
            advance(autoscaler, 15_000);
            assertEquals(1, autoscaler.running());
            assertEquals(2, autoscaler.draining());
            advance(autoscaler, 30_000);
            assertTrue(!launched.get(1).killed && !launched.get(2).killed, "not before the drain timeout");
            advance(autoscaler, 1);
            assertTrue(launched.get(1).killed && launched.get(2).killed, "killed after it");
            advance(autoscaler, 1);
            assertEquals(0, autoscaler.draining());
            assertEquals(1, autoscaler.nodes().size());
        }
        assertTrue(launched.getFirst().drained, "close drains the rest");
    }

    /** @return the lines the syncs so far printed after the first {@code from} of them. */
    private List<String> linesSince(final int from)
    {
        return List.copyOf(events.subList(from, events.size()));
    }

    /** Moves the clock to the next sync and returns the one line that sync printed. */
    private String nextSync(final Autoscaler autoscaler)
    {
        final int before = events.size();
        advance(autoscaler, 15_000);
        final List<String> lines = linesSince(before);
        assertEquals(1, lines.size(), () -> "one line a sync: " + lines);
        return lines.getFirst();
    }

    @Test
    void aSyncThatChangesNothingSaysWhatItSawAndWhichRuleHeld()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(1, 3)))
        {
            final FakeNode first = launched.getFirst();
            assertEquals("holding at 1 compute node: no node gave a figure of ops/s yet (1 starting or not " +
                "answering), against a target of 1,000 per node", nextSync(autoscaler), "still starting");

            first.state = State.SERVING;
            first.ops = 1_050;
            advance(autoscaler, 1);
            assertEquals("holding at 1 compute node: ops/s per node 1,050 against a target of 1,000 (ratio 1.05, " +
                "tolerance 0.10; 1 reported, 0 without a figure); within the tolerance of 0.10", nextSync(autoscaler));

            first.ops = 90;
            assertEquals("holding at 1 compute node: ops/s per node 90.00 against a target of 1,000 (ratio 0.09, " +
                "tolerance 0.10; 1 reported, 0 without a figure); the load asks for ceil(0.09 x 1) = 1, as many as " +
                "run", nextSync(autoscaler), "HPA rounds up");

            first.ops = 0;
            assertTrue(nextSync(autoscaler).endsWith("; the load asks for 0, but --min is 1"), events::toString);
        }
    }

    @Test
    void aSyncHeldAtTheMaximumOrByAWindowSaysSo()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(1, 3)))
        {
            launched.getFirst().state = State.SERVING;
            launched.getFirst().ops = 5_000;
            advance(autoscaler, 1);
            assertTrue(nextSync(autoscaler).startsWith("starting 2 compute nodes: 1 -> 3 compute nodes: ops/s per " +
                "node 5,000"), "the action line as before");
            launched.forEach(node ->
            {
                node.state = State.SERVING;
                node.ops = 5_000;
            });
            advance(autoscaler, 1);
            assertTrue(nextSync(autoscaler).endsWith("; the load asks for 15, but --max is 3"), events::toString);

            launched.forEach(node -> node.ops = 100);
            assertTrue(nextSync(autoscaler).endsWith("; the load asks for 1, but the scale-down window of 300 s " +
                "holds a higher recommendation made within it"), events::toString);
        }
        try (Autoscaler autoscaler = new Autoscaler(context(1, 3).upWindowMs(60_000)))
        {
            final FakeNode node = launched.getLast();
            node.state = State.SERVING;
            node.ops = 1_000;
            advance(autoscaler, 1);
            nextSync(autoscaler);
            node.ops = 3_000;
            assertTrue(nextSync(autoscaler).endsWith("; the load asks for 3, but the scale-up window of 60 s holds " +
                "a lower recommendation made within it"), events::toString);
        }
    }

    @Test
    void aSyncDampedByANodeWithoutAFigureSaysSo()
    {
        try (Autoscaler autoscaler = new Autoscaler(context(2, 4)))
        {
            launched.forEach(node -> node.state = State.SERVING);
            launched.get(0).ops = 1_500;
            launched.get(1).unreadable = true;
            advance(autoscaler, 1);
            assertEquals("holding at 2 compute nodes: ops/s per node 1,500 against a target of 1,000 (ratio 1.50, " +
                "tolerance 0.10; 1 reported, 1 without a figure); 1 node without a figure, counted idle, damps the " +
                "change", nextSync(autoscaler));
        }
    }

    /** A node whose state and load the test sets; drain and kill only record that they were asked. */
    private static final class FakeNode implements ManagedNode
    {
        private final int ordinal;
        private State state = State.STARTING;
        private double ops;
        private boolean unreadable;
        private boolean drained;
        private boolean killed;
        private boolean hangsInDrain;

        FakeNode(final int ordinal)
        {
            this.ordinal = ordinal;
        }

        Map<String, Double> metrics() throws IOException
        {
            if (unreadable)
            {
                throw new IOException("fake " + ordinal + " does not answer");
            }
            return Map.of(ScalingMetric.OPS.series(), ops);
        }

        public State poll()
        {
            if (state == State.DRAINING && !hangsInDrain)
            {
                state = State.EXITED;
            }
            return state;
        }

        public long nodeId()
        {
            return 100 + ordinal;
        }

        public int metricsPort()
        {
            return 9_000 + ordinal;
        }

        public String describe()
        {
            return "fake " + ordinal;
        }

        public void drain()
        {
            drained = true;
            if (state != State.EXITED)
            {
                state = hangsInDrain ? State.DRAINING : State.EXITED;
            }
        }

        public void kill()
        {
            killed = true;
            state = State.EXITED;
        }

        public String exitReport()
        {
            return "killed by test";
        }
    }
}
