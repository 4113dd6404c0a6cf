package io.dkv.verbs;

import io.dkv.verbs.tcp.TcpDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.dkv.verbs.RawTcpPeer.awaitClosedByPeer;
import static io.dkv.verbs.RawTcpPeer.hello;
import static io.dkv.verbs.RawTcpPeer.request;
import static io.dkv.verbs.RawTcpPeer.send;
import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer that sends garbage to a tcp NIC engine is cut off and logged, while a well-behaved peer's
 * operations carry on without a single error, registered memory is untouched, and the engine's
 * memory stays bounded by its links.
 */
class TcpEngineBadInputTest
{
    private static final Duration CUT_OFF_WAIT = Duration.ofSeconds(5);

    private TestNode victim;
    private WellBehavedPeer friendly;
    private TestNode friend;
    private QueuePair[] friendQps;
    private TcpDevice engine;
    private final List<String> logged = new ArrayList<>();
    /** Held strongly: the logging framework keeps loggers only weakly, and a new one would lack the handler. */
    private final Logger engineLog = Logger.getLogger("io.dkv.verbs.tcp.TcpNicEngine");
    private final Handler logCapture = new Handler()
    {
        public void publish(final LogRecord record)
        {
            synchronized (logged)
            {
                logged.add(record.getMessage());
            }
        }

        public void flush()
        {
        }

        public void close()
        {
        }
    };

    @BeforeEach
    void start()
    {
        engineLog.addHandler(logCapture);
        victim = TestNode.open(TestNode.context("tcp").tcpMaxLinks(8));
        engine = (TcpDevice)victim.device;
        friendly = WellBehavedPeer.start(victim);
        friend = friendly.node;
        friendQps = friendly.qps;
        // the friend's link in, and the victim's link out to the friend (registered by the engine)
        awaitLinks(2);
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        if (friendly != null)
        {
            friendly.close();
        }
        engineLog.removeHandler(logCapture);
        victim.close();
    }

    private SocketChannel attacker() throws IOException
    {
        return RawTcpPeer.connect(victim.device.address());
    }

    private void assertCutOffAndLogged(final SocketChannel attacker, final long cutsBefore, final String reasonFragment)
        throws IOException
    {
        assertTrue(awaitClosedByPeer(attacker), "the engine cut the attacker off");
        final long deadline = System.nanoTime() + CUT_OFF_WAIT.toNanos();
        while (engine.linksCutOff() == cutsBefore && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(cutsBefore + 1, engine.linksCutOff());
        assertTrue(engine.lastCutOffReason().contains(reasonFragment), engine.lastCutOffReason());
        while (!wasLogged(reasonFragment) && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        synchronized (logged)
        {
            assertTrue(wasLogged(reasonFragment), logged.toString());
        }
        attacker.close();
    }

    /** A new attacker sends the frames: the engine cuts its link off for the reason given. */
    private void assertNewAttackerCutOff(final String reasonFragment, final ByteBuffer... frames) throws IOException
    {
        final long cuts = engine.linksCutOff();
        final SocketChannel attacker = attacker();
        send(attacker, frames);
        assertCutOffAndLogged(attacker, cuts, reasonFragment);
    }

    private boolean wasLogged(final String reasonFragment)
    {
        synchronized (logged)
        {
            return logged.stream().anyMatch(line -> line.contains("cut off") && line.contains(reasonFragment));
        }
    }

    /**
     * Frames that looked valid but named what the attacker may not use: its link was cut off, the friend
     * still works, and the victim's region holds what it held before (but for the friend's counter).
     */
    private void assertRefusedAndCutOff(
        final SocketChannel attacker, final long cutsBefore, final byte[] before, final String nothingWritten)
        throws IOException, InterruptedException
    {
        assertCutOffAndLogged(attacker, cutsBefore, "may not use");
        assertFriendUnharmed();
        assertArrayEquals(WellBehavedPeer.withoutCounter(before),
            WellBehavedPeer.withoutCounter(victim.region.segment().toArray(ValueLayout.JAVA_BYTE)), nothingWritten);
    }

    private void assertFriendUnharmed() throws InterruptedException
    {
        friendly.assertUnharmed();
    }

    @Test
    void randomBytesAreCutOff() throws Exception
    {
        final byte[] garbage = new byte[64 * 1024];
        ThreadLocalRandom.current().nextBytes(garbage);
        assertNewAttackerCutOff("malformed", ByteBuffer.wrap(garbage));
        assertFriendUnharmed();
    }

    @Test
    void aLengthOfTwoToTheThirtyFirstIsCutOff() throws Exception
    {
        assertNewAttackerCutOff("length -2147483648", hello(friend.device.address()),
            request(Integer.MIN_VALUE, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(),
                friendQps[1].qpNum(), 0, 8, 0, 0));
        assertNewAttackerCutOff("malformed", hello(friend.device.address()),
            request(Integer.MAX_VALUE, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(),
                friendQps[1].qpNum(), 0,
                Integer.MAX_VALUE - REQUEST_HEADER_LENGTH, 0, 0));
        assertFriendUnharmed();
    }

    @Test
    void unknownOpcodesAndFrameTypesAreCutOff() throws Exception
    {
        assertNewAttackerCutOff("opcode 99", hello(friend.device.address()),
            request(REQUEST_HEADER_LENGTH, 99, TRANSPORT_RC, 1, 1, 0, 0, 0, 0));

        final ByteBuffer unknownType =
            request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_RC, 1, 1, 0, 8, 0, 0);
        unknownType.put(TYPE_OFFSET, (byte)77);
        assertNewAttackerCutOff("type 77", hello(friend.device.address()), unknownType);

        assertNewAttackerCutOff("expected HELLO",
            request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_RC, 1, 1, 0, 8, 0, 0));
        assertFriendUnharmed();
    }

    @Test
    void validLookingFramesWithRandomKeysAndAddressesAreRefusedThenCutOff() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final byte[] before = victim.region.segment().toArray(ValueLayout.JAVA_BYTE);
        final SocketChannel attacker = attacker();
        send(attacker, hello(PortAddress.parse("tcp:127.0.0.1:9")));
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final ByteBuffer payload = ByteBuffer.allocate(64);
        for (int i = 0; i < 64; i++)
        {
            final ByteBuffer header = request(REQUEST_HEADER_LENGTH + 64, Opcode.RDMA_WRITE.code(), TRANSPORT_RC,
                random.nextInt(1 << 24), random.nextInt(1 << 24), i, 64, random.nextLong(), random.nextInt());
            send(attacker, header, payload);
        }
        assertRefusedAndCutOff(attacker, cuts, before, "no attacker frame wrote anything");
    }

    @Test
    void framesImpersonatingAConnectedPeerOverAnotherLinkAreRefusedThenCutOffAndWriteNothing() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final byte[] before = victim.region.segment().toArray(ValueLayout.JAVA_BYTE);
        final SocketChannel attacker = attacker();
        send(attacker, hello(friend.device.address()));
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final ByteBuffer payload = ByteBuffer.allocate(32);
        for (int i = 0; i < 64; i++)
        {
            int rkey = random.nextInt();
            while (rkey == victim.region.rkey())
            {
                rkey = random.nextInt();
            }
            send(attacker,
                request(REQUEST_HEADER_LENGTH + 32, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(),
                friendQps[1].qpNum(), 1_000_000 + i, 32, victim.region.address() + random.nextInt(1 << 20), rkey),
                payload);
        }
        assertRefusedAndCutOff(attacker, cuts, before, "no impostor frame wrote anything");
    }

    @Test
    void truncatedFramesHoldNothingButTheirLinkAndGoAwayWithIt() throws Exception
    {
        final long buffersBefore = engine.linkBufferBytes();
        final int linksBefore = engine.linkCount();
        final List<SocketChannel> attackers = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            final SocketChannel attacker = attacker();
            final ByteBuffer header = request(REQUEST_HEADER_LENGTH + 100_000, Opcode.RDMA_WRITE.code(), TRANSPORT_RC,
                friendQps[0].qpNum(), friendQps[1].qpNum(), 5, 100_000, victim.region.address(), victim.region.rkey());
            send(attacker, hello(friend.device.address()), header.limit(REQUEST_HEADER_LENGTH / 2));
            attackers.add(attacker);
        }
        awaitLinks(linksBefore + 4);
        assertFriendUnharmed();
        for (final SocketChannel attacker : attackers)
        {
            attacker.close();
        }
        awaitLinks(linksBefore);
        awaitBuffers(buffersBefore);
        assertFriendUnharmed();
    }

    @Test
    void connectionsBeyondTheLinkLimitAreRefusedAndMemoryStaysBounded() throws Exception
    {
        final long perLink = 2L * TestNode.context("tcp").tcpLinkBuffer();
        final List<SocketChannel> attackers = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final SocketChannel attacker = attacker();
            send(attacker, hello(friend.device.address()));
            attackers.add(attacker);
        }
        // the engine accepts links as its thread gets the CPU: wait until it has refused one for the limit, which
        // it must do before it has taken all forty, however slowly it runs
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (engine.lastCutOffReason() == null || !engine.lastCutOffReason().contains("maxLinks"))
        {
            assertTrue(System.nanoTime() < deadline, "no link refused for maxLinks within 60 s; links: " +
                engine.linkCount() + ", last cut-off: " + engine.lastCutOffReason());
            Thread.sleep(10);
        }
        assertTrue(engine.linkCount() <= 8, "links: " + engine.linkCount());
        assertTrue(engine.linkBufferBytes() <= 8 * perLink, "link buffers: " + engine.linkBufferBytes());
        for (final SocketChannel attacker : attackers)
        {
            attacker.close();
        }
        assertFriendUnharmed();
    }

    @Test
    void aStormOfGarbageFromManyPeersLeavesTheEngineServingAndItsMemoryWhereItWas() throws Exception
    {
        final long buffersBefore = engine.linkBufferBytes();
        final int linksBefore = engine.linkCount();
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < 200; round++)
        {
            try (SocketChannel attacker = attacker())
            {
                final byte[] garbage = new byte[random.nextInt(1, 4096)];
                random.nextBytes(garbage);
                if (round % 2 == 0)
                {
                    send(attacker, hello(friend.device.address()), ByteBuffer.wrap(garbage));
                }
                else
                {
                    send(attacker, ByteBuffer.wrap(garbage));
                }
            }
            catch (final IOException refusedWhileFull)
            {
                // the engine may refuse while cut-off links are still being closed
            }
        }
        // the engine accepts in order: once it has cut off a connection made after the storm, it has accepted every
        // link of the storm, and the count only falls from there (before, it could pass through the count it started
        // with while links the storm left in the accept queue were still to come)
        try (SocketChannel probe = attacker())
        {
            send(probe, request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_RC, 1, 1, 0, 8, 0, 0));
            assertTrue(awaitClosedByPeer(probe), "a frame before HELLO cut off after the storm");
        }
        awaitLinks(linksBefore);
        awaitBuffers(buffersBefore);
        assertFriendUnharmed();
    }

    /** A link leaves the count when it closes and gives its buffers back right after, on the engine thread. */
    private void awaitBuffers(final long expected)
    {
        final long deadline = System.nanoTime() + CUT_OFF_WAIT.toNanos();
        while (engine.linkBufferBytes() != expected && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(expected, engine.linkBufferBytes(), "closed links gave their buffers back");
    }

    private void awaitLinks(final int expected)
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (engine.linkCount() != expected && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(expected, engine.linkCount());
    }
}
