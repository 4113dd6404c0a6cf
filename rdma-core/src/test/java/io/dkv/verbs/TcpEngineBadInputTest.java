package io.dkv.verbs;

import io.dkv.verbs.tcp.TcpDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong friendOperations = new AtomicLong();
    private final AtomicReference<Throwable> friendFailure = new AtomicReference<>();
    private Thread friendThread;

    @BeforeEach
    void start()
    {
        engineLog.addHandler(logCapture);
        victim = TestNode.open(TestNode.context("tcp").tcpMaxLinks(8));
        friend = TestNode.open("tcp");
        engine = (TcpDevice)victim.device;
        friendQps = friend.connectRc(victim);
        friendThread = new Thread(this::friendTraffic, "well-behaved-peer");
        friendThread.start();
        // the friend's link in, and the victim's link out to the friend (registered by the engine)
        awaitLinks(2);
        // the victim's QP takes requests from the link its peer spoke on first: let the friend speak first
        final long deadline = System.nanoTime() + CUT_OFF_WAIT.toNanos();
        while (friendOperations.get() == 0 && friendFailure.get() == null && System.nanoTime() < deadline)
        {
            Thread.yield();
        }
        assertNull(friendFailure.get(), "the well-behaved peer saw an error before any attack");
        assertTrue(friendOperations.get() > 0, "the well-behaved peer completed an operation before any attack");
    }

    @AfterEach
    void stop() throws InterruptedException
    {
        running.set(false);
        if (friendThread != null)
        {
            friendThread.join(10_000);
        }
        engineLog.removeHandler(logCapture);
        friend.close();
        victim.close();
    }

    /**
     * WRITE a counter into the victim, READ it back, check it: the whole time the attacks go on.
     */
    private void friendTraffic()
    {
        final WorkCompletion[] wcs = {new WorkCompletion()};
        final SendWorkRequest write = new SendWorkRequest().opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .local(friend.region, 0, 8).remote(victim.region.address() + 8192, victim.region.rkey());
        final SendWorkRequest read = new SendWorkRequest().opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(friend.region, 64, 8).remote(victim.region.address() + 8192, victim.region.rkey());
        try
        {
            long value = 1;
            while (running.get())
            {
                friend.region.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
                friendQps[0].postSend(write);
                await(wcs);
                friendQps[0].postSend(read);
                await(wcs);
                final long readBack = friend.region.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 64);
                if (readBack != value)
                {
                    throw new AssertionError("read back " + readBack + " after writing " + value);
                }
                friendOperations.addAndGet(2);
                value++;
            }
        }
        catch (final Throwable ex)
        {
            friendFailure.set(ex);
        }
    }

    private void await(final WorkCompletion[] wcs)
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (friend.cq.poll(wcs) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("a well-behaved operation took more than 5 s");
            }
            Thread.onSpinWait();
        }
        if (!wcs[0].isSuccess())
        {
            throw new AssertionError("a well-behaved operation failed: " + wcs[0]);
        }
    }

    private SocketChannel attacker() throws IOException
    {
        final SocketChannel channel = SocketChannel.open(victim.device.address().tcpSocketAddress());
        channel.configureBlocking(true);
        return channel;
    }

    private static ByteBuffer hello(final PortAddress claimed)
    {
        final ByteBuffer frame = ByteBuffer.allocate(HELLO_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] address = claimed.bytes();
        frame.putInt(FRAME_LENGTH_OFFSET, HELLO_LENGTH).put(TYPE_OFFSET, TYPE_HELLO).putLong(HELLO_MAGIC_OFFSET, HELLO_MAGIC)
            .putInt(HELLO_VERSION_OFFSET, PROTOCOL_VERSION).putInt(HELLO_ADDRESS_LENGTH_OFFSET, address.length)
            .put(HELLO_ADDRESS_OFFSET, address);
        return frame;
    }

    private static ByteBuffer request(
        final int frameLength, final int opcode, final int transport, final int srcQpn, final int dst, final int psn,
        final int length, final long remoteAddr, final int rkey)
    {
        final ByteBuffer frame = ByteBuffer.allocate(REQUEST_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FRAME_LENGTH_OFFSET, frameLength).put(TYPE_OFFSET, TYPE_REQUEST).put(REQ_OPCODE_OFFSET, (byte)opcode)
            .put(REQ_TRANSPORT_OFFSET, (byte)transport).putInt(REQ_SRC_QPN_OFFSET, srcQpn).putInt(REQ_DST_OFFSET, dst)
            .putInt(REQ_PSN_OFFSET, psn).putInt(REQ_LENGTH_OFFSET, length).putLong(REQ_REMOTE_ADDR_OFFSET, remoteAddr)
            .putInt(REQ_RKEY_OFFSET, rkey);
        return frame;
    }

    private static void send(final SocketChannel channel, final ByteBuffer... frames)
    {
        try
        {
            for (final ByteBuffer frame : frames)
            {
                frame.clear();
                while (frame.hasRemaining())
                {
                    channel.write(frame);
                }
            }
        }
        catch (final IOException cutOffMidWrite)
        {
            // the engine may cut the attacker off before it finished sending
        }
    }

    /** @return true once the engine closed the attacker's connection. */
    private static boolean awaitClosedByPeer(final SocketChannel channel) throws IOException
    {
        channel.socket().setSoTimeout((int)CUT_OFF_WAIT.toMillis());
        final ByteBuffer sink = ByteBuffer.allocate(4096);
        final long deadline = System.nanoTime() + CUT_OFF_WAIT.toNanos();
        try (var in = channel.socket().getInputStream())
        {
            final byte[] bytes = new byte[4096];
            while (System.nanoTime() < deadline)
            {
                if (in.read(bytes) < 0)
                {
                    return true;
                }
            }
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException reset)
        {
            return true;
        }
        sink.clear();
        return false;
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

    private boolean wasLogged(final String reasonFragment)
    {
        synchronized (logged)
        {
            return logged.stream().anyMatch(line -> line.contains("cut off") && line.contains(reasonFragment));
        }
    }

    private void assertFriendUnharmed() throws InterruptedException
    {
        final long before = friendOperations.get();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (friendOperations.get() < before + 100 && System.nanoTime() < deadline && friendFailure.get() == null)
        {
            Thread.sleep(1);
        }
        assertNull(friendFailure.get(), "the well-behaved peer saw an error");
        assertTrue(friendOperations.get() >= before + 100, "the well-behaved peer kept going");
    }

    @Test
    void randomBytesAreCutOff() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final byte[] garbage = new byte[64 * 1024];
        ThreadLocalRandom.current().nextBytes(garbage);
        final SocketChannel attacker = attacker();
        send(attacker, ByteBuffer.wrap(garbage));
        assertCutOffAndLogged(attacker, cuts, "malformed");
        assertFriendUnharmed();
    }

    @Test
    void aLengthOfTwoToTheThirtyFirstIsCutOff() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final SocketChannel attacker = attacker();
        send(attacker, hello(friend.device.address()),
            request(Integer.MIN_VALUE, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(), friendQps[1].qpNum(), 0, 8, 0, 0));
        assertCutOffAndLogged(attacker, cuts, "length -2147483648");

        final long cutsAgain = engine.linksCutOff();
        final SocketChannel second = attacker();
        send(second, hello(friend.device.address()),
            request(Integer.MAX_VALUE, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(), friendQps[1].qpNum(), 0,
                Integer.MAX_VALUE - REQUEST_HEADER_LENGTH, 0, 0));
        assertCutOffAndLogged(second, cutsAgain, "malformed");
        assertFriendUnharmed();
    }

    @Test
    void unknownOpcodesAndFrameTypesAreCutOff() throws Exception
    {
        final long cuts = engine.linksCutOff();
        final SocketChannel attacker = attacker();
        send(attacker, hello(friend.device.address()), request(REQUEST_HEADER_LENGTH, 99, TRANSPORT_RC, 1, 1, 0, 0, 0, 0));
        assertCutOffAndLogged(attacker, cuts, "opcode 99");

        final long cutsAgain = engine.linksCutOff();
        final SocketChannel second = attacker();
        final ByteBuffer unknownType = request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_RC, 1, 1, 0, 8, 0, 0);
        unknownType.put(TYPE_OFFSET, (byte)77);
        send(second, hello(friend.device.address()), unknownType);
        assertCutOffAndLogged(second, cutsAgain, "type 77");

        final long cutsThird = engine.linksCutOff();
        final SocketChannel third = attacker();
        send(third, request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_RC, 1, 1, 0, 8, 0, 0));
        assertCutOffAndLogged(third, cutsThird, "expected HELLO");
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
        assertCutOffAndLogged(attacker, cuts, "may not use");
        assertFriendUnharmed();
        assertArrayEquals(stripFriendWord(before), stripFriendWord(victim.region.segment().toArray(ValueLayout.JAVA_BYTE)),
            "no attacker frame wrote anything");
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
            send(attacker, request(REQUEST_HEADER_LENGTH + 32, Opcode.RDMA_WRITE.code(), TRANSPORT_RC, friendQps[0].qpNum(),
                friendQps[1].qpNum(), 1_000_000 + i, 32, victim.region.address() + random.nextInt(1 << 20), rkey), payload);
        }
        assertCutOffAndLogged(attacker, cuts, "may not use");
        assertFriendUnharmed();
        assertArrayEquals(stripFriendWord(before), stripFriendWord(victim.region.segment().toArray(ValueLayout.JAVA_BYTE)),
            "no impostor frame wrote anything");
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
        Thread.sleep(300);
        assertTrue(engine.linkCount() <= 8, "links: " + engine.linkCount());
        assertTrue(engine.linkBufferBytes() <= 8 * perLink, "link buffers: " + engine.linkBufferBytes());
        assertTrue(engine.lastCutOffReason().contains("maxLinks"), engine.lastCutOffReason());
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

    /** The friend writes its counter at offset 8192: everything else must be as it was. */
    private static byte[] stripFriendWord(final byte[] region)
    {
        final byte[] copy = region.clone();
        java.util.Arrays.fill(copy, 8192, 8200, (byte)0);
        return copy;
    }

}
