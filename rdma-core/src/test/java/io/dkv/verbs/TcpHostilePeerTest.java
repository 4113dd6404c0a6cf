package io.dkv.verbs;

import io.dkv.verbs.tcp.TcpDevice;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static io.dkv.verbs.RawTcpPeer.awaitClosedByPeer;
import static io.dkv.verbs.RawTcpPeer.dcRead;
import static io.dkv.verbs.RawTcpPeer.hello;
import static io.dkv.verbs.RawTcpPeer.readResponses;
import static io.dkv.verbs.RawTcpPeer.send;
import static io.dkv.verbs.tcp.TcpFrameDescriptor.HELLO_LENGTH;
import static io.dkv.verbs.tcp.TcpFrameDescriptor.REQUEST_HEADER_LENGTH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a peer on the network can make a tcp NIC engine hold, and for how long: state per DC
 * initiator a link names, links that never speak, links from one address. Each bound holds while a
 * well-behaved peer carries on without an error, and what an attacker made the engine hold is given
 * back once it stops. And no request whose bytes have arrived waits for more bytes to be answered.
 */
class TcpHostilePeerTest
{
    private static final long DC_KEY = 0x5EC2E7_D1CEL;
    private static final int MAX_DC_SOURCES = 64;
    private static final int MAX_LINKS_PER_ADDRESS = 4;
    private static final int HELLO_TIMEOUT_MS = 300;

    private TestNode victim;
    private TcpDevice engine;
    private DcTarget dct;
    private WellBehavedPeer friendly;

    @BeforeEach
    void start()
    {
        victim = TestNode.open(TestNode.context("tcp")
            .tcpMaxDcSourcesPerLink(MAX_DC_SOURCES)
            .tcpMaxLinksPerAddress(MAX_LINKS_PER_ADDRESS)
            .tcpHelloTimeoutMs(HELLO_TIMEOUT_MS));
        engine = (TcpDevice)victim.device;
        final SharedReceiveQueue srq = victim.pd.createSrq(16, 1);
        dct = victim.pd.createDct(new DctInitAttributes().cq(victim.cq).srq(srq).dcKey(DC_KEY));
        friendly = WellBehavedPeer.start(victim);
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        friendly.close();
        victim.close();
    }

    @Test
    void requestsAlreadyReceivedAreAnsweredWithoutMoreBytesArriving() throws Exception
    {
        // READs larger than a link's staging buffer, sent in one write: the engine has every byte of
        // all three before it answers the first, and nothing more ever comes
        final int length = 512 * 1024;
        final ByteBuffer all = ByteBuffer.allocate(HELLO_LENGTH + 3 * REQUEST_HEADER_LENGTH);
        all.put(hello(friendly.node.device.address()).clear());
        for (int psn = 0; psn < 3; psn++)
        {
            all.put(dcRead(0x77, dct, psn, length, victim.region.address(), victim.region.rkey()).clear());
        }
        try (SocketChannel peer = RawTcpPeer.connect(victim.device.address()))
        {
            send(peer, all);
            assertArrayEquals(new byte[]{0, 0, 0}, readResponses(peer, 3), "three READs answered with SUCCESS");
        }
        friendly.assertUnharmed();
    }

    @Test
    void madeUpDcInitiatorsThatSucceedLeaveNoStateBehind() throws Exception
    {
        final int frames = 50_000;
        try (SocketChannel peer = RawTcpPeer.connect(victim.device.address()))
        {
            final CompletableFuture<byte[]> answers = CompletableFuture.supplyAsync(() -> responses(peer, frames));
            send(peer, hello(friendly.node.device.address()));
            final ByteBuffer batch = ByteBuffer.allocate(1000 * REQUEST_HEADER_LENGTH);
            for (int qpn = 1; qpn <= frames; )
            {
                batch.clear();
                for (int i = 0; i < 1000; i++, qpn++)
                {
                    batch.put(dcRead(qpn, dct, 0, 8, victim.region.address(), victim.region.rkey()).clear());
                }
                send(peer, batch);
            }
            final byte[] statuses = answers.get();
            assertEquals(frames, statuses.length, "every READ answered");
            assertEquals(0, engine.dcSourceStates(), "DC initiators the engine holds state for");
        }
        friendly.assertUnharmed();
    }

    @Test
    void aLinkNamingMoreFailedDcInitiatorsThanTheBoundIsCutOffAndItsStateGiven() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final byte[] before = victim.region.segment().toArray(ValueLayout.JAVA_BYTE);
        try (SocketChannel peer = RawTcpPeer.connect(victim.device.address()))
        {
            send(peer, hello(friendly.node.device.address()));
            final ByteBuffer batch = ByteBuffer.allocate(4 * MAX_DC_SOURCES * REQUEST_HEADER_LENGTH);
            for (int qpn = 1; qpn <= 4 * MAX_DC_SOURCES; qpn++)
            {
                // a wrong rkey: an access error, after which the responder drops the initiator's frames until it resets
                batch.put(dcRead(qpn, dct, 0, 8, victim.region.address(), victim.region.rkey() ^ 0x5A5A).clear());
            }
            send(peer, batch);
            assertTrue(awaitClosedByPeer(peer), "the engine cut the link off");
        }
        awaitValue(engine::linksCutOff, cuts + 1);
        assertTrue(engine.lastCutOffReason().contains("DC initiators"), engine.lastCutOffReason());
        awaitValue(engine::dcSourceStates, 0);
        friendly.assertUnharmed();
        assertArrayEquals(WellBehavedPeer.withoutCounter(before),
            WellBehavedPeer.withoutCounter(victim.region.segment().toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void connectionsThatNeverSayHelloHoldNoBuffersAndAreClosedAtTheirDeadline() throws Exception
    {
        final long buffers = engine.linkBufferBytes();
        final int links = engine.linkCount();
        final List<SocketChannel> silent = new ArrayList<>();
        for (int i = 0; i < MAX_LINKS_PER_ADDRESS; i++)
        {
            silent.add(RawTcpPeer.connectFrom("127.0.0.3", victim.device.address()));
        }
        awaitValue(() -> engine.linkCount(), links + MAX_LINKS_PER_ADDRESS);
        assertEquals(buffers, engine.linkBufferBytes(), "links that have not said HELLO hold no staging buffers");
        for (final SocketChannel channel : silent)
        {
            assertTrue(awaitClosedByPeer(channel), "a link that never said HELLO is closed");
            channel.close();
        }
        awaitValue(() -> engine.linkCount(), links);
        assertTrue(engine.lastCutOffReason().contains("HELLO"), engine.lastCutOffReason());
        friendly.assertUnharmed();
    }

    @Test
    void aSilentLinksDeadlineRunsOnTheDevicesClock() throws Exception
    {
        // far from the system's nanoTime, so that a time taken on one and compared on the other shows
        final AtomicLong jump = new AtomicLong(-1_000_000_000_000_000L);
        final NanoClock clock = () -> System.nanoTime() + jump.get();
        final int helloTimeoutMs = 600_000;
        try (TestNode clocked = TestNode.open(TestNode.context("tcp").tcpHelloTimeoutMs(helloTimeoutMs)
            .nanoClock(clock)))
        {
            final TcpDevice device = (TcpDevice)clocked.device;
            final int links = device.linkCount();
            try (SocketChannel silent = RawTcpPeer.connect(clocked.device.address()))
            {
                awaitValue(device::linkCount, links + 1);
                Thread.sleep(300);
                assertEquals(links + 1, device.linkCount(), "ten minutes to say HELLO have not passed on the clock");

                jump.addAndGet((helloTimeoutMs + 1_000) * 1_000_000L);
                assertTrue(awaitClosedByPeer(silent), "they have now: the link is closed");
                awaitValue(device::linkCount, links);
                assertTrue(device.lastCutOffReason().contains("HELLO"), device.lastCutOffReason());
            }
        }
    }

    @Test
    void oneAddressCannotTakeMoreLinksThanItsShareWhileOthersStillConnect() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final List<SocketChannel> crowd = new ArrayList<>();
        try
        {
            for (int i = 0; i < 3 * MAX_LINKS_PER_ADDRESS; i++)
            {
                final SocketChannel channel = RawTcpPeer.connectFrom("127.0.0.2", victim.device.address());
                send(channel, hello(friendly.node.device.address()));
                crowd.add(channel);
            }
            awaitValue(engine::linksCutOff, cuts + 2 * MAX_LINKS_PER_ADDRESS);
            assertTrue(engine.lastCutOffReason().contains("127.0.0.2"), engine.lastCutOffReason());

            try (TestNode newcomer = TestNode.open("tcp"))
            {
                final QueuePair[] qps = newcomer.connectRc(victim);
                final Completions completions = new Completions(newcomer.cq);
                qps[0].postSend(new SendWorkRequest().wrId(7).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .local(newcomer.region, 0, 64).remote(victim.region.address(), victim.region.rkey()));
                assertEquals(WcStatus.SUCCESS, completions.awaitOne(newcomer.cq).status(),
                    "a peer from another address");
            }
            friendly.assertUnharmed();
        }
        finally
        {
            for (final SocketChannel channel : crowd)
            {
                channel.close();
            }
        }
    }

    private static byte[] responses(final SocketChannel peer, final int count)
    {
        try
        {
            return readResponses(peer, count);
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static void awaitValue(final LongSupplier value, final long expected)
    {
        final long deadline = System.nanoTime() + RawTcpPeer.WAIT.toNanos();
        while (value.getAsLong() != expected && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(expected, value.getAsLong());
    }
}
