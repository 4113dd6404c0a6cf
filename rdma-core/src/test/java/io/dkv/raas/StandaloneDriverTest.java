package io.dkv.raas;

import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.cnc.MembershipFlyweight;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import io.dkv.verbs.Access;
import io.dkv.verbs.ChildProcess;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A standalone driver serves every process of the host through its command-and-control file: an
 * attached application gets the same API as an embedded one; several processes share one driver;
 * the driver frees what a dead client held, and a client fails its calls clearly when its driver
 * dies.
 */
class StandaloneDriverTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** How far the clocks of the tests of time are set from the wall clock: any mix-up of the two shows. */
    private static final long DAY_MS = 86_400_000L;
    private static final long DAY_NANOS = DAY_MS * 1_000_000L;

    private static String uniqueName()
    {
        return "test-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static RaasContext driverContext(final String provider, final String name, final long nodeId)
    {
        return RaasPair.context(provider, nodeId).driverName(name).clientTimeoutMs(1000);
    }

    private static RaasContext clientContext(final String name)
    {
        return new RaasContext().driverName(name).requestSlots(1024).clientDataBytes(1 << 20).timeoutMs(10_000);
    }

    @Test
    void anAttachedApplicationReadsTheMembershipItsDriversDirectoryKeeps()
    {
        final long[] members = new long[MembershipFlyweight.MAX_MEMBERS];
        final int[] states = new int[members.length];
        final long[] incarnations = new long[members.length];
        for (int i = 0; i < members.length; i++)
        {
            members[i] = 1_000 + i;
            incarnations[i] = 1_795_000_000_000L + i;
            states[i] = i % 3 == 0 ? Membership.DOWN : i % 3 == 1 ? Membership.JOINING : Membership.LIVE;
        }
        final StaticDirectory directory =
            new StaticDirectory().membership(new Membership(42, 3, members, states, incarnations));
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), directory);
            Raas attached = AttachedRaas.attach(clientContext(name)))
        {
            assertEquals(new Membership(42, 3, members, states, incarnations), attached.membership(),
                "the largest one, whole, incarnations too");
            directory.membership(new Membership(43, 2, new long[]{7}, new int[]{Membership.LIVE}));
            assertEquals(new Membership(43, 2, new long[]{7}, new int[]{Membership.LIVE}), attached.membership(),
                "read anew");
        }
    }

    @Test
    void anAttachedApplicationReadsThePhaseAndEachMembersPlacementWhileAChangeRuns()
    {
        final Membership changing = new Membership(44, 2, new long[]{7, 8, 9},
            new int[]{Membership.LIVE, Membership.LIVE, Membership.DOWN}, new long[]{70, 80, 90},
            new int[]{Membership.PLACED, Membership.PLACED_BEFORE, Membership.PLACED_AFTER}, Membership.SWITCH);
        final StaticDirectory directory = new StaticDirectory().membership(changing);
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), directory);
            Raas attached = AttachedRaas.attach(clientContext(name)))
        {
            final Membership read = attached.membership();
            assertEquals(changing, read);
            assertEquals(Membership.SWITCH, read.phase());
            assertEquals(Membership.PLACED_BEFORE, read.placement(8));
            assertEquals(Membership.PLACED_AFTER, read.placement(9));
            final Membership settled = new Membership(45, 2, new long[]{7, 9},
                new int[]{Membership.LIVE, Membership.LIVE}, new long[]{70, 90});
            directory.membership(settled);
            assertEquals(settled, attached.membership(), "steady again, every member placed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anAttachedApplicationUsesTheSameApiAsAnEmbeddedOne(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext(provider, name, 1), directory);
            Raas target = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas attached = AttachedRaas.attach(clientContext(name)))
        {
            assertEquals(1, attached.self().id());
            target.malloc(2, 1 << 16, "data");
            final Listener listener = target.listen(4);
            final RemoteRegion region = attached.lookup("data");
            final Connection connection = attached.open(2, null);

            final byte[] bytes = MessagingTest.pattern(3000, 7);
            connection.write(region, 4096, MemorySegment.ofArray(bytes), 0, bytes.length);
            final byte[] back = new byte[3000];
            connection.read(region, 4096, MemorySegment.ofArray(back), 0, back.length);
            assertArrayEquals(bytes, back);
            final MemorySegment buffer = attached.allocateBuffer(64);
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77);
            connection.write(region, 8, buffer, 0, 8);
            assertEquals(77, target.localMemory(target.lookup("data")).get(ValueLayout.JAVA_LONG_UNALIGNED, 8),
                "zero-copy buffer");
            assertEquals(0, connection.faa(region, 64, 3));
            assertEquals(3, connection.cas(region, 64, 3, 4));

            final ConcurrentHashMap<Long, Integer> statuses = new ConcurrentHashMap<>();
            final Connection async = attached.open(2, (token, status, value) -> statuses.put(token, status));
            for (int i = 0; i < 200; i++)
            {
                async.faaAsync(region, 128, 1, i);
            }
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (statuses.size() < 200 && System.nanoTime() < deadline)
            {
                attached.poll();
            }
            assertEquals(200, statuses.size());
            assertTrue(statuses.values().stream().allMatch(status -> status == RaasStatus.SUCCESS));
            assertEquals(200, connection.faa(region, 128, 0));

            final Connection messages = attached.connect(2, 4, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            messages.send(MemorySegment.ofArray(bytes), 0, 1000, Flags.ADAPTIVE);
            final MemorySegment in = MemorySegment.ofArray(new byte[2000]);
            assertEquals(1000, server.recv(in, 0, 2000, WAIT));
            server.send(MemorySegment.ofArray(bytes), 0, 2500, Flags.ADAPTIVE);
            final MemorySegment reply = MemorySegment.ofArray(new byte[3000]);
            assertEquals(2500, messages.recv(reply, 0, 3000, WAIT));
            assertArrayEquals(java.util.Arrays.copyOf(bytes, 2500),
                reply.asSlice(0, 2500).toArray(ValueLayout.JAVA_BYTE));

            final RemoteRegion forged =
                new RemoteRegion("data", 2, region.nodeEpoch(), region.address(), region.rkey(), region.length() * 2,
                region.access(), 1);
            assertThrows(RaasException.class,
                () -> connection.read(forged, 0, MemorySegment.ofArray(new byte[8]), 0, 8),
                "regions not obtained from the driver are refused");
        }
    }

    /**
     * Applications attached as nodes of their own (a compute node each, say) are registered in their driver's
     * directory, reached at its address, while they are attached, and list the nodes of a role as any node does. Each
     * listens on the same service as its own node: a peer's CONNECT names the node it wants, and reaches that
     * application's listener, not another's nor the driver's own. A node is one application at a time.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void applicationsAttachedAsNodesOfTheirOwnEachListenOnTheSameService(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        final int service = 5;
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext(provider, name, 1), directory);
            Raas peer = RaasDriver.start(RaasPair.context(provider, 2), directory);
            Raas eleven = AttachedRaas.attach(clientContext(name).attachAs(11).role(NodeRecord.ROLE_COMPUTE));
            Raas twelve = AttachedRaas.attach(clientContext(name).attachAs(12).role(NodeRecord.ROLE_COMPUTE)))
        {
            final NodeRecord driverNode = driver.driver().self();
            assertEquals(new NodeRecord(11, NodeRecord.ROLE_COMPUTE, driverNode.address(), driverNode.dctNumber(),
                driverNode.dcKey(), driverNode.epoch(), 0), eleven.self(), "reached through its driver");
            assertEquals(12, twelve.self().id());
            assertEquals(eleven.self(), directory.node(11), "registered by the driver as the application attached");
            assertEquals(java.util.Set.of(11L, 12L), twelve.nodes(NodeRecord.ROLE_COMPUTE).stream()
                .map(NodeRecord::id).collect(java.util.stream.Collectors.toSet()));
            assertEquals(java.util.Set.of(1L, 2L), eleven.nodes(NodeRecord.ROLE_CLIENT).stream()
                .map(NodeRecord::id).collect(java.util.stream.Collectors.toSet()), "the drivers' own nodes");
            final Listener ofEleven = eleven.listen(service);
            final Listener ofTwelve = twelve.listen(service);
            final Listener ofDriver = driver.driver().listen(service);

            final byte[] sent = new byte[64];
            for (final long node : new long[]{12, 1, 11})
            {
                final Connection to = peer.connect(node, service, Flags.ADAPTIVE, null);
                java.util.Arrays.fill(sent, (byte)node);
                to.send(MemorySegment.ofArray(sent), 0, sent.length, Flags.ADAPTIVE);
                final Listener expected = node == 11 ? ofEleven : node == 12 ? ofTwelve : ofDriver;
                final Connection accepted = expected.accept(WAIT);
                final byte[] received = new byte[100];
                assertEquals(sent.length, accepted.recv(MemorySegment.ofArray(received), 0, received.length, WAIT));
                assertEquals(node, received[0], "node " + node + "'s listener got the CONNECT that named it");
            }

            final Listener ofPeer = peer.listen(service);
            for (final long node : new long[]{12, 2})
            {
                final Connection from = eleven.connect(node, service, Flags.ADAPTIVE, null);
                final Connection accepted = (node == 12 ? ofTwelve : ofPeer).accept(WAIT);
                assertEquals(11, accepted.nodeId(), "node " + node + " is called by the node the application is");
                from.send(MemorySegment.ofArray(sent), 0, sent.length, Flags.ADAPTIVE);
                assertEquals(sent.length, accepted.recv(MemorySegment.ofArray(new byte[100]), 0, 100, WAIT));
                accepted.send(MemorySegment.ofArray(sent), 0, 10, Flags.ADAPTIVE);
                assertEquals(10, from.recv(MemorySegment.ofArray(new byte[100]), 0, 100, WAIT), "and answers it");
            }

            try (ChildProcess other = ChildProcess.start("another process", List.of(), RaasChild.class))
            {
                other.send("attach " + name + " 11");
                final String taken = other.readLine(WAIT);
                assertTrue(taken.startsWith("error ") &&
                    taken.contains("node 11 is already attached to this driver, by client "), taken);
            }
            // the same process attaching again (a handle that judged its driver gone) takes its node over
            final Raas twelveAgain = AttachedRaas.attach(clientContext(name).attachAs(12));
            assertThrows(RaasException.class, () -> twelve.listen(service + 1), "its first attachment removed");
            twelveAgain.listen(service);
            peer.connect(12, service, Flags.ADAPTIVE, null).close();
            twelveAgain.close();
            final RaasException own = assertThrows(RaasException.class,
                () -> AttachedRaas.attach(clientContext(name).attachAs(1)));
            assertTrue(own.getMessage().contains("node 1 is this driver's own"), own.getMessage());

            eleven.close();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (directory.node(11) != null && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(null, directory.node(11), "withdrawn once its application went");
            directory.register(new NodeRecord(11, NodeRecord.ROLE_COMPUTE, driverNode.address(),
                driverNode.dctNumber(), driverNode.dcKey(), driverNode.epoch(), 0));
            assertThrows(RaasException.class, () -> peer.connect(11, service, Flags.ADAPTIVE, null),
                "its application gone, node 11 listens no more");
            try (Raas again = AttachedRaas.attach(clientContext(name).attachAs(11)))
            {
                again.listen(service);
                peer.connect(11, service, Flags.ADAPTIVE, null).close();
            }
        }
    }

    /** A driver whose directory cannot publish the node an application asks to be says so, and attaches it not. */
    @Test
    void attachingAsANodeFailsWhereTheDriversDirectoryPublishesNoSuchNodes()
    {
        final StaticDirectory nodes = new StaticDirectory();
        final Directory ownNodeOnly = new Directory()
        {
            public NodeRecord node(final long nodeId)
            {
                return nodes.node(nodeId);
            }

            public RemoteRegion region(final String name)
            {
                return nodes.region(name);
            }

            public void register(final NodeRecord self)
            {
                nodes.register(self);
            }

            public void publish(final RemoteRegion region)
            {
                nodes.publish(region);
            }

            public void withdraw(final String name)
            {
                nodes.withdraw(name);
            }

            public void invalidate(final long nodeId)
            {
            }
        };
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), ownNodeOnly))
        {
            final RaasException refused =
                assertThrows(RaasException.class, () -> AttachedRaas.attach(clientContext(name).attachAs(11)));
            assertTrue(refused.getMessage().contains("node 11 cannot be registered in driver node 1's directory: the " +
                "directory (io.dkv.raas.StandaloneDriverTest$"), refused.getMessage());
            assertTrue(refused.getMessage().endsWith(") publishes no attached applications' nodes"),
                refused.getMessage());
            assertEquals(null, nodes.node(11));
            try (Raas shared = AttachedRaas.attach(clientContext(name)))
            {
                assertEquals(1, shared.self().id(), "an application that is no node of its own attaches as before");
            }
        }
    }

    /**
     * An application attached as a node of its own publishes regions of that node with their contents in place before
     * their names appear; peers read them one-sided at its driver's address with exactly the rights it gave. Freed, or
     * its application gone, a region is withdrawn. An embedded driver publishes so on its own node.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anApplicationAttachedAsANodeOfItsOwnPublishesRegionsOfThatNode(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext(provider, name, 1), directory);
            Raas peer = RaasDriver.start(RaasPair.context(provider, 2), directory))
        {
            final Raas eleven = AttachedRaas.attach(clientContext(name).attachAs(11));
            final byte[] endpoint = "127.0.0.1:6379".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            final RemoteRegion published =
                eleven.publish(11, "endpoint.11", MemorySegment.ofArray(endpoint), Access.REMOTE_READ);
            assertEquals(11, published.nodeId(), "a region of the node the application is");
            assertEquals(endpoint.length, published.length());
            assertThrows(RaasException.class, () -> eleven.localMemory(published), "its driver's memory");
            final RaasException elsewhere = assertThrows(RaasException.class,
                () -> eleven.publish(2, "not.its.own", MemorySegment.ofArray(endpoint), Access.REMOTE_READ));
            assertTrue(elsewhere.getMessage().contains("only on its own node 1 or the client's, 11"),
                elsewhere.getMessage());

            final RemoteRegion found = peer.lookup("endpoint.11");
            final Connection connection = peer.open(11, null);
            final byte[] read = new byte[endpoint.length];
            connection.read(found, 0, MemorySegment.ofArray(read), 0, read.length);
            assertArrayEquals(endpoint, read);
            assertThrows(RaasException.class,
                () -> connection.write(found, 0, MemorySegment.ofArray(read), 0, 8), "registered read-only");

            final byte[] ofPeer = {1, 2, 3, 4, 5, 6, 7, 8};
            peer.publish(2, "endpoint.2", MemorySegment.ofArray(ofPeer), Access.REMOTE_READ);
            final byte[] back = new byte[8];
            eleven.open(2, null).read(eleven.lookup("endpoint.2"), 0, MemorySegment.ofArray(back), 0, 8);
            assertArrayEquals(ofPeer, back, "an embedded driver's, on its own node");

            eleven.free(published);
            assertThrows(RaasException.class, () -> peer.lookup("endpoint.11"), "withdrawn when freed");
            eleven.publish(11, "again.11", MemorySegment.ofArray(endpoint), Access.REMOTE_READ);
            assertEquals(11, peer.lookup("again.11").nodeId());
            eleven.close();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (directory.region("again.11") != null && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            assertEquals(null, directory.region("again.11"), "withdrawn when its application went");
        }
    }

    /**
     * The asynchronous operations enter a connection as the synchronous ones do: each lands what its
     * synchronous twin would, and the handler hears of each by its token, on a connection of an
     * attached application as on one of an embedded driver.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @Timeout(120)
    void everyAsynchronousOperationDoesWhatItsSynchronousOneDoes(final boolean attachedApplication)
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), directory);
            Raas target = RaasDriver.start(RaasPair.context("shm", 2), directory);
            Raas initiator = attachedApplication ?
                AttachedRaas.attach(clientContext(name)) : RaasDriver.start(RaasPair.context("shm", 3), directory))
        {
            target.malloc(2, 1 << 16, "data");
            final RemoteRegion region = initiator.lookup("data");
            final ConcurrentHashMap<Long, Integer> statuses = new ConcurrentHashMap<>();
            final ConcurrentHashMap<Long, Long> values = new ConcurrentHashMap<>();
            final Connection connection = initiator.open(2, (token, status, value) ->
            {
                values.put(token, value);
                statuses.put(token, status);
            });

            final byte[] bytes = MessagingTest.pattern(3000, 11);
            connection.writeAsync(region, 0, MemorySegment.ofArray(bytes), 0, bytes.length, 1);
            connection.faaAsync(region, 4096, 5, 2);
            awaitCompletions(initiator, connection, statuses, 2);
            final byte[] back = new byte[3000];
            connection.readAsync(region, 0, MemorySegment.ofArray(back), 0, back.length, 3);
            connection.casAsync(region, 4096, 5, 9, 4);
            awaitCompletions(initiator, connection, statuses, 4);

            assertTrue(statuses.values().stream().allMatch(status -> status == RaasStatus.SUCCESS), statuses::toString);
            assertArrayEquals(bytes, target.localMemory(target.lookup("data")).asSlice(0, 3000)
                .toArray(ValueLayout.JAVA_BYTE), "WRITE");
            assertArrayEquals(bytes, back, "READ");
            assertEquals(0, values.get(2L), "FAA: the word before");
            assertEquals(5, values.get(4L), "CAS: the word before, which it swapped");
            assertEquals(9, connection.faa(region, 4096, 0));
            assertEquals(0, connection.outstanding(), "every credit given back");
        }
    }

    /**
     * A request an attached application's driver refuses (here a READ of a region of its node's earlier incarnation,
     * after the node restarted and the driver's route learnt the new one) reaches no queue pair and has no completion
     * but the driver's refusal: the handler hears it as one, failed, and the connection's credit is given back. Before,
     * the refusal marked the request's slot answered and nobody told the handler: every GET carried by completions that
     * a memory node's restart met waited for ever ({@code dkv check --through driver-async}, UNRECOVERED).
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    @Timeout(120)
    void anAsynchronousRequestTheDriverRefusesCompletesFailedThroughTheHandler(final String provider)
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext(provider, name, 1), directory);
            Raas initiator = AttachedRaas.attach(clientContext(name));
            // closed by the test once read; again here (closing twice does nothing), should the test stop before
            Raas first = RaasDriver.start(RaasPair.context(provider, 2), directory))
        {
            final long firstEpoch = first.self().epoch();
            first.malloc(2, 1 << 16, "data");
            final RemoteRegion before = initiator.lookup("data");
            final ConcurrentHashMap<Long, Integer> statuses = new ConcurrentHashMap<>();
            final Connection connection = initiator.open(2, (token, status, value) -> statuses.put(token, status));
            final MemorySegment buffer = initiator.allocateBuffer(64);
            connection.readAsync(before, 0, buffer, 0, 64, 1);
            awaitCompletions(initiator, connection, statuses, 1);
            assertEquals(RaasStatus.SUCCESS, statuses.get(1L), "a READ of the first incarnation, while it runs");

            first.close();
            // a later incarnation, whatever the wall clock says: its epoch is what tells it from the first
            try (Raas second = RaasDriver.start(
                RaasPair.context(provider, 2).epochClock(() -> firstEpoch + 1_000), directory))
            {
                second.malloc(2, 1 << 16, "data");
                final RemoteRegion after = initiator.lookup("data");
                assertEquals(firstEpoch + 1_000, after.nodeEpoch(), "the region of the second incarnation");
                // a request with it makes the driver read the node's record again: its route is the second's now
                connection.read(after, 0, buffer, 0, 64);

                connection.readAsync(before, 0, buffer, 0, 64, 2);
                awaitCompletion(initiator, connection, statuses, 2L);
                assertEquals(RaasStatus.UNREACHABLE, statuses.get(2L),
                    () -> "the READ of the first incarnation's region, refused: " +
                        RaasStatus.describe(statuses.get(2L)));
                assertEquals(0, connection.outstanding(), "its credit given back");
                connection.read(after, 0, buffer, 0, 64);
            }
        }
    }

    /** Poll until the request of {@code token} completed; a request never completed fails the test, not hangs it. */
    private static void awaitCompletion(
        final Raas raas, final Connection connection, final Map<Long, Integer> statuses, final long token)
    {
        connection.flush();
        // a guard against hanging only: the completion comes in microseconds
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!statuses.containsKey(token))
        {
            if (raas.poll() == 0 && System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("request " + token + " never completed; its connection holds " +
                    connection.outstanding() + " credits, completions so far " + statuses);
            }
        }
    }

    private static void awaitCompletions(
        final Raas raas, final Connection connection, final Map<Long, Integer> statuses, final int count)
    {
        connection.flush();
        while (statuses.size() < count)
        {
            raas.poll();
        }
    }

    @Test
    void aCommandWakesTheDriverAsleepOnItsDoorbell()
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        // idle, the conductor sleeps a second at a time (its clients give it three): only the ring of each command
        // makes it answer sooner
        final long second = TimeUnit.SECONDS.toNanos(1);
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1)
            .conductorIdleStrategy("doorbell:0," + second + "," + second), directory);
            Raas target = RaasDriver.start(RaasPair.context("shm", 2), directory);
            Raas attached = AttachedRaas.attach(clientContext(name)))
        {
            target.malloc(2, 4096, "counter");
            final RemoteRegion counter = attached.lookup("counter");
            final Connection connection = attached.open(2, null);
            assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
            {
                for (int i = 0; i < 30; i++)
                {
                    assertEquals(i, connection.faa(counter, 0, 1));
                }
            }, "30 increments, each a command the driver would sleep through until its timeout (30 s in all)");
        }
    }

    @Test
    void twoProcessesShareOneDriverAndTheirIncrementsAllCount() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), directory);
            Raas target = RaasDriver.start(RaasPair.context("shm", 2), directory);
            ChildProcess first = ChildProcess.start("first client", List.of(), RaasChild.class);
            ChildProcess second = ChildProcess.start("second client", List.of(), RaasChild.class))
        {
            target.malloc(2, 4096, "counter");
            for (final ChildProcess child : List.of(first, second))
            {
                child.call("attach " + name);
                child.call("lookup counter");
                child.call("open 2");
            }
            assertEquals(2, driver.clientCount());
            first.send("faa 5000");
            second.send("faa 5000");
            first.awaitOk("faa", Duration.ofSeconds(60));
            second.awaitOk("faa", Duration.ofSeconds(60));
            final Connection check = target.open(2, null);
            assertEquals(10_000, check.faa(target.lookup("counter"), 0, 0));
        }
    }

    @Test
    void theDriverFreesWhatADeadClientHeld() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1), directory);
            ChildProcess client = ChildProcess.start("doomed client", List.of(), RaasChild.class))
        {
            client.call("attach " + name);
            client.call("malloc 4096 doomed-region");
            client.call("open 1");
            assertEquals(1, driver.clientCount());
            assertTrue(directory.region("doomed-region") != null);
            final int connectionsBefore = driver.driver().connectionCount();

            client.kill();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while ((driver.clientCount() > 0 || directory.region("doomed-region") != null) &&
                System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(0, driver.clientCount(), "the dead client was removed");
            assertEquals(null, directory.region("doomed-region"), "its region was freed and withdrawn");
            assertEquals(connectionsBefore - 1, driver.driver().connectionCount(), "its connection was closed");
        }
    }

    @Test
    void closingAnAttachmentEndsTheCallsWaitingOnItWithAnErrorNotTheProcess() throws Exception
    {
        final String name = uniqueName();
        try (StandaloneDriver driver = StandaloneDriver.launch(driverContext("shm", name, 1),
            new StaticDirectory()))
        {
            final Raas attached = AttachedRaas.attach(clientContext(name));
            final Listener listener = attached.listen(7);
            final CompletableFuture<Connection> accepted = new CompletableFuture<>();
            final Thread waiter = new Thread(() ->
            {
                try
                {
                    accepted.complete(listener.accept(Duration.ofSeconds(60)));
                }
                catch (final RuntimeException ex)
                {
                    accepted.completeExceptionally(ex);
                }
            }, "accept-waiter");
            waiter.start();
            // whether the waiter is inside accept or not yet: the outcome is the same, an error naming the close
            Thread.sleep(100);

            attached.close();

            waiter.join(WAIT.toMillis());
            assertTrue(accepted.isCompletedExceptionally(), "the waiting accept ended when the attachment closed");
            final Throwable error = assertThrows(ExecutionException.class, accepted::get).getCause();
            assertTrue(error instanceof RaasException && error.getMessage().contains("closed"), error.toString());
        }
    }

    @Test
    void aClientFailsItsCallsClearlyWhenItsDriverDies() throws Exception
    {
        final String name = uniqueName();
        try (ChildProcess driverProcess = ChildProcess.start("driver", List.of(), RaasChild.class))
        {
            driverProcess.call("driver shm " + name + " 9");
            final Raas attached = AttachedRaas.attach(clientContext(name).driverTimeoutMs(500));
            final RemoteRegion region = attached.lookup("shared");
            final Connection connection = attached.open(9, null);
            assertEquals(0, connection.faa(region, 0, 1));

            driverProcess.kill();
            final RaasException error = assertThrows(RaasException.class, () ->
            {
                final long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline)
                {
                    connection.faa(region, 0, 1);
                }
            });
            assertTrue(error.getMessage().contains("driver '" + name + "'"), error.getMessage());
            assertTrue(error.getMessage().contains("its process has exited"), error.getMessage());
            attached.close();
        }
        finally
        {
            // a killed driver leaves its files for the next driver of that name to sweep: this test has no next one
            final java.nio.file.Path directory =
                io.dkv.raas.cnc.CncDescriptor.driverDirectory(clientContext(name).cncDirectory(), name);
            try (var files = java.nio.file.Files.list(directory))
            {
                for (final java.nio.file.Path file : files.toList())
                {
                    java.nio.file.Files.deleteIfExists(file);
                }
            }
            java.nio.file.Files.deleteIfExists(directory);
        }
    }

    @Test
    @Timeout(60)
    void aDriverWhoseWallClockWasSteppedADayIsAliveToItsClients()
    {
        final String name = uniqueName();
        final EpochClock dayBehind = () -> System.currentTimeMillis() - DAY_MS;
        try (StandaloneDriver ignored =
            StandaloneDriver.launch(driverContext("shm", name, 1).epochClock(dayBehind), new StaticDirectory());
            Raas attached = AttachedRaas.attach(clientContext(name).driverTimeoutMs(5_000)))
        {
            final RemoteRegion region = attached.malloc(1, 4096, "stepped");
            assertEquals(0, attached.open(1, null).faa(region, 0, 1), "heartbeats are in the host's monotonic time");
        }
    }

    @Test
    @Timeout(60)
    void theDriverHeartbeatsByItsOwnClockAndAClientJudgesItByItsOwn()
    {
        final String name = uniqueName();
        // heartbeats are in the monotonic clock (one per host, never stepped): these clocks stand for other hosts'
        final NanoClock dayBehind = () -> System.nanoTime() - DAY_NANOS;
        final AtomicLong clientJump = new AtomicLong();
        final NanoClock clientClock = () -> System.nanoTime() - DAY_NANOS + clientJump.get() * 1_000_000L;
        try (StandaloneDriver driver =
            StandaloneDriver.launch(driverContext("shm", name, 1).nanoClock(dayBehind), new StaticDirectory()))
        {
            // by this host's clock the driver has been silent for a day
            final RaasException stale = assertThrows(RaasException.class,
                () -> AttachedRaas.attach(clientContext(name).driverTimeoutMs(5_000)));
            assertTrue(stale.getMessage().contains("not been alive"), stale.getMessage());

            try (Raas attached = AttachedRaas.attach(clientContext(name).driverTimeoutMs(5_000).nanoClock(clientClock)))
            {
                final RemoteRegion region = attached.malloc(1, 4096, "clocked");
                assertEquals(0, attached.open(1, null).faa(region, 0, 1), "the driver is alive by the client's clock");
                final Listener listener = attached.listen(6);

                // the client's clock runs past the driver's timeout: the driver is silent by it, though it beats on
                clientJump.set(10_000);
                final RaasException silent =
                    assertThrows(RaasException.class, () -> listener.accept(Duration.ofSeconds(30)));
                assertTrue(silent.getMessage().contains("not been alive"), silent.getMessage());
                assertEquals(1, driver.clientCount(), "the driver keeps the client: its heartbeats are in the future");
            }
        }
    }

    @Test
    @Timeout(60)
    void theDriverRemovesAClientSilentByTheDriversClock() throws Exception
    {
        final String name = uniqueName();
        final NanoClock dayBehind = () -> System.nanoTime() - DAY_NANOS;
        final AtomicLong driverJump = new AtomicLong();
        final NanoClock driverClock = () -> System.nanoTime() - DAY_NANOS + driverJump.get() * 1_000_000L;
        try (StandaloneDriver driver =
            StandaloneDriver.launch(driverContext("shm", name, 1).nanoClock(driverClock), new StaticDirectory());
            Raas attached = AttachedRaas.attach(clientContext(name).nanoClock(dayBehind)))
        {
            attached.open(1, null);
            assertEquals(1, driver.clientCount());
            // by this host's clock the client's heartbeats are a day old: a driver reading it would remove the client
            Thread.sleep(500);
            assertEquals(1, driver.clientCount(), "the driver judges the client's heartbeats by its own clock");

            driverJump.set(60_000);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (driver.clientCount() > 0 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(0, driver.clientCount(), "a minute passed on the driver's clock, past clientTimeoutMs");
        }
    }

    @Test
    void attachingWhereNoDriverRunsSaysHowToStartOne()
    {
        final RaasException error =
            assertThrows(RaasException.class, () -> AttachedRaas.attach(clientContext(uniqueName())));
        assertTrue(error.getMessage().contains("./dkv driver"), error.getMessage());
    }

    @Test
    void twoDriversCannotShareAName()
    {
        final String name = uniqueName();
        try (StandaloneDriver first = StandaloneDriver.launch(driverContext("shm", name, 1), new StaticDirectory()))
        {
            final RaasException error = assertThrows(RaasException.class,
                () -> StandaloneDriver.launch(driverContext("shm", name, 2).verbs(new VerbsContext().provider("shm")),
                    new StaticDirectory()));
            assertTrue(error.getMessage().contains("already runs"), error.getMessage());
            assertEquals(0, first.clientCount());
        }
    }

    @Test
    void aDriverThatCannotStartLeavesNoDirectoryBehind()
    {
        final String name = uniqueName();
        final RaasContext context = driverContext("shm", name, 1);
        final Directory unreachable = new Directory()
        {
            public NodeRecord node(final long nodeId)
            {
                return null;
            }

            public RemoteRegion region(final String regionName)
            {
                return null;
            }

            public void register(final NodeRecord self)
            {
                throw new RaasException("no MetaServer answered");
            }

            public void publish(final RemoteRegion region)
            {
            }

            public void withdraw(final String regionName)
            {
            }

            public void invalidate(final long nodeId)
            {
            }
        };
        final RaasException error =
            assertThrows(RaasException.class, () -> StandaloneDriver.launch(context, unreachable));
        assertTrue(error.getMessage().contains("no MetaServer answered"), error.getMessage());
        assertFalse(java.nio.file.Files.exists(io.dkv.raas.cnc.CncDescriptor.driverDirectory(context.cncDirectory(),
            name)),
            "the driver's directory is gone");
        assertThrows(RaasException.class, () -> AttachedRaas.attach(clientContext(name)));
    }
}
