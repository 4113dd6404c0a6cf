package io.dkv.raas;

import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Socket-like messaging: connect to a service a peer listens on, then messages of any size flow in
 * order whichever way RaaS carries them (SEND into the shared receive queue, WRITE_WITH_IMM into the
 * advertised buffer, or a READ by the receiver), with credits keeping a fast sender from
 * overrunning a slow receiver.
 */
class MessagingTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void messagesOfEverySizeArriveInOrderWhicheverWayTheyTravel(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider); Listener listener = pair.b.listen(7))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 7, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            assertTrue(client.isMessaging());
            assertTrue(server.isMessaging());

            final int[] sizes = {0, 1, 100, 2000, 4000, 10_000, 100_000, 250_000};
            final int[] flags =
                {Flags.ADAPTIVE, Flags.USE_SEND, Flags.USE_WRITE, Flags.USE_READ, Flags.INLINE | Flags.USE_SEND};
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread receiver = new Thread(() ->
            {
                try
                {
                    final MemorySegment into = MemorySegment.ofArray(new byte[300_000]);
                    for (final int flag : flags)
                    {
                        for (final int size : sizes)
                        {
                            if (!applies(flag, size))
                            {
                                continue;
                            }
                            final int length = server.recv(into, 0, 300_000, WAIT);
                            assertEquals(size, length, "size with flags " + flag);
                            assertArrayEquals(pattern(size, size * 31L + flag),
                                into.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            });
            receiver.start();
            for (final int flag : flags)
            {
                for (final int size : sizes)
                {
                    if (applies(flag, size))
                    {
                        client.send(MemorySegment.ofArray(pattern(size, size * 31L + flag)), 0, size, flag);
                    }
                }
            }
            receiver.join(30_000);
            assertNull(failure.get());
        }
    }

    private static boolean applies(final int flag, final int size)
    {
        if ((flag & Flags.INLINE) != 0)
        {
            return size <= 48;
        }
        if ((flag & Flags.USE_SEND) != 0)
        {
            return size <= 4000;
        }
        return (flag & Flags.USE_WRITE) == 0 || size <= 250_000;
    }

    static byte[] pattern(final int size, final long seed)
    {
        final byte[] bytes = new byte[size];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aFastSenderWaitsForCreditsInsteadOfOverrunningTheReceiver(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.messageCredits(4));
            Listener listener = pair.b.listen(9))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 9, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            final int messages = 2000;
            final Thread sender = new Thread(() ->
            {
                final MemorySegment out = Arena.ofAuto().allocate(8);
                for (int i = 0; i < messages; i++)
                {
                    out.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    client.send(out, 0, i % 3 == 0 ? 8 : 4, i % 5 == 0 ? Flags.USE_WRITE : Flags.ADAPTIVE);
                }
            });
            sender.start();
            final MemorySegment in = MemorySegment.ofArray(new byte[16]);
            for (int i = 0; i < messages; i++)
            {
                if (i % 100 == 0)
                {
                    Thread.sleep(2);
                }
                server.recv(in, 0, 16, WAIT);
                assertEquals(i, in.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
            }
            sender.join(30_000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void connectionsHoldNoMoreCreditsThanTheSharedReceiveQueueHasBuffers(final String provider) throws Exception
    {
        // 12 connections of 16 credits each would be 192 messages in flight into 128 buffers: the receive queue ran
        // dry and senders waited on receiver-not-ready, holding back every request behind them on their initiator
        final int connections = 12;
        final int messages = 40;
        try (RaasPair pair = new RaasPair(provider, context -> context.receiveBuffers(128).messageCredits(16));
            Listener listener = pair.b.listen(12))
        {
            final List<Connection> clients = new ArrayList<>();
            final List<Connection> servers = new ArrayList<>();
            for (int i = 0; i < connections; i++)
            {
                clients.add(pair.a.connect(pair.b.self().id(), 12, Flags.ADAPTIVE, null));
                servers.add(listener.accept(WAIT));
            }
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> senders = new ArrayList<>();
            for (int c = 0; c < connections; c++)
            {
                final Connection client = clients.get(c);
                senders.add(Thread.ofPlatform().start(() ->
                {
                    try
                    {
                        final MemorySegment out = Arena.ofAuto().allocate(64);
                        for (int i = 0; i < messages; i++)
                        {
                            out.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                            client.send(out, 0, 64, Flags.USE_SEND);
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failure.set(ex);
                    }
                }));
            }
            // nothing consumed for a while: every sender runs out of credits (or, before, of receive buffers)
            Thread.sleep(300);
            final MemorySegment in = MemorySegment.ofArray(new byte[64]);
            for (int i = 0; i < messages; i++)
            {
                for (final Connection server : servers)
                {
                    assertEquals(64, server.recv(in, 0, 64, WAIT));
                    assertEquals(i, in.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "in order");
                }
            }
            for (final Thread sender : senders)
            {
                sender.join(30_000);
            }
            assertNull(failure.get());
            // counted by the sender over tcp, by the receiver over shm (where the sender cannot tell)
            assertEquals(0, ((RaasDriver)pair.a).counters().value(DriverCounter.RNR_RETRIES) +
                ((RaasDriver)pair.b).counters().value(DriverCounter.RNR_RETRIES), "sends that found no receive buffer");
            assertTrue(((RaasDriver)pair.a).counters().value(DriverCounter.MESSAGE_CREDIT_WAITS) > 0,
                "senders waited for credits instead");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aMessageOfferedWithoutACreditIsNotSentAndNothingWaits(final String provider) throws Exception
    {
        try (RaasPair pair = new RaasPair(provider, context -> context.messageCredits(4));
            Listener listener = pair.b.listen(13))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 13, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            final MemorySegment out = Arena.ofAuto().allocate(32);
            int offered = 0;
            for (int i = 0; i < 100; i++)
            {
                out.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                if (!client.offer(out, 0, 32))
                {
                    break;
                }
                offered++;
            }
            assertEquals(4, offered, "as many as the credits granted, then false at once");
            final int messages = 200;
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread sender = Thread.ofPlatform().start(() ->
            {
                try
                {
                    final MemorySegment more = Arena.ofAuto().allocate(32);
                    for (int i = 4; i < messages; i++)
                    {
                        more.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                        while (!client.offer(more, 0, 32))
                        {
                            Thread.yield();
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            });
            final MemorySegment in = MemorySegment.ofArray(new byte[32]);
            for (int i = 0; i < messages; i++)
            {
                assertEquals(32, server.recv(in, 0, 32, WAIT));
                assertEquals(i, in.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "offered messages arrive in order");
            }
            sender.join(30_000);
            assertNull(failure.get());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void zeroCopyMessagesAreViewsReleasedInOrderAndBothDirectionsWork(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider); Listener listener = pair.b.listen(3))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 3, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            final byte[] small = pattern(500, 1);
            final byte[] large = pattern(50_000, 2);
            client.send(MemorySegment.ofArray(small), 0, small.length, Flags.ADAPTIVE);
            client.send(MemorySegment.ofArray(large), 0, large.length, Flags.ADAPTIVE);
            try (ReceivedMessage first = server.recvZeroCopy(WAIT))
            {
                assertArrayEquals(small, first.payload().toArray(ValueLayout.JAVA_BYTE));
                assertThrows(RaasException.class, () -> server.recvZeroCopy(WAIT), "one message at a time");
            }
            try (ReceivedMessage second = server.recvZeroCopy(WAIT))
            {
                assertArrayEquals(large, second.payload().toArray(ValueLayout.JAVA_BYTE));
            }

            server.send(MemorySegment.ofArray(small), 0, small.length, Flags.ADAPTIVE);
            final MemorySegment back = MemorySegment.ofArray(new byte[1000]);
            assertEquals(500, client.recv(back, 0, 1000, WAIT));
            assertArrayEquals(small, back.asSlice(0, 500).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void datagramsCarrySmallMessagesWhenForcedAndLargerOnesAreRefused(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider); Listener listener = pair.b.listen(8))
        {
            final Connection client = pair.a.connect(pair.b.self().id(), 8, Flags.FORCE_UD, null);
            final Connection server = listener.accept(WAIT);
            final MemorySegment in = MemorySegment.ofArray(new byte[4096]);
            for (int i = 0; i < 200; i++)
            {
                final byte[] message = pattern(1 + i * 13, i);
                client.send(MemorySegment.ofArray(message), 0, message.length, Flags.ADAPTIVE);
                assertEquals(message.length, server.recv(in, 0, 4096, WAIT));
                assertArrayEquals(message, in.asSlice(0, message.length).toArray(ValueLayout.JAVA_BYTE));
            }
            final RaasException tooLarge = assertThrows(RaasException.class,
                () -> client.send(MemorySegment.ofArray(new byte[5000]), 0, 5000, Flags.FORCE_UD));
            assertTrue(tooLarge.getMessage().contains("MTU"), tooLarge.getMessage());
            server.send(MemorySegment.ofArray(new byte[]{9}), 0, 1, Flags.FORCE_UD);
            assertEquals(1, client.recv(in, 0, 16, WAIT));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void connectingToAServiceNobodyListensOnIsRefusedAndClosingIsSeenByThePeer(final String provider)
    {
        try (RaasPair pair = new RaasPair(provider); Listener listener = pair.b.listen(5))
        {
            final RaasException refused = assertThrows(RaasException.class,
                () -> pair.a.connect(pair.b.self().id(), 6, Flags.ADAPTIVE, null));
            assertTrue(refused.getMessage().contains("refused"), refused.getMessage());

            final Connection client = pair.a.connect(pair.b.self().id(), 5, Flags.ADAPTIVE, null);
            final Connection server = listener.accept(WAIT);
            client.close();
            final RaasException closed = assertThrows(RaasException.class,
                () -> server.recv(MemorySegment.ofArray(new byte[8]), 0, 8, WAIT));
            assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
            assertThrows(RaasException.class, () -> listener.accept(Duration.ofMillis(50)));
        }
    }
}
