package io.dkv.raas.stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * EXS's protocol without a transport: a sender and a receiver exchange DATA, ADVERT and ACK through two
 * in-order queues whose delivery a seeded random schedule interleaves with writes, posted receives and
 * copies. Whatever the interleaving, the receiver gets exactly the bytes written, no direct transfer lands
 * in a receive already served from the stream buffer, no indirect one overwrites bytes not yet copied out,
 * and over the seeds both kinds of transfer happen and stale advertisements are thrown away.
 */
class StreamProtocolTest
{
    private static final int RING = 4096;
    private static final int MAX_POSTED = 8;

    /** A message in flight: what the transport would carry. */
    private record Message(byte type, int phase, long sequence, int length, int id, long offset, byte[] inline)
    {
    }

    private static final class Run
    {
        final Random random;
        final byte[] data;
        final StreamSender sender = new StreamSender(RING, MAX_POSTED * 2 + 2);
        final StreamReceiver receiver = new StreamReceiver(RING, MAX_POSTED);
        final byte[] ring = new byte[RING];
        final boolean[] unread = new boolean[RING];
        final byte[][] buffers = new byte[MAX_POSTED][];
        final ArrayDeque<Message> toReceiver = new ArrayDeque<>();
        final ArrayDeque<Message> toSender = new ArrayDeque<>();
        final ByteArrayOutputStream got = new ByteArrayOutputStream();
        int written;
        int writeLeft;
        boolean finQueued;
        boolean ended;
        int direct;
        int indirect;

        Run(final long seed)
        {
            random = new Random(seed);
            data = new byte[2000 + random.nextInt(40_000)];
            random.nextBytes(data);
        }

        void step()
        {
            switch (random.nextInt(7))
            {
                case 0, 1 -> write();
                case 2 -> deliverToReceiver();
                case 3 -> deliverToSender();
                case 4 -> post();
                case 5 -> receiverProgress();
                default -> take();
            }
        }

        void write()
        {
            if (written == data.length)
            {
                if (!finQueued)
                {
                    finQueued = true;
                    toReceiver.add(new Message(StreamMessages.FIN, 0, sender.sequence(), 0, 0, 0, null));
                }
                return;
            }
            if (writeLeft == 0)
            {
                // the application's next write: from a byte to more than the stream buffer holds
                writeLeft = Math.min(data.length - written, 1 + random.nextInt(random.nextBoolean() ? 50 : 6000));
            }
            final int kind = sender.plan(writeLeft);
            if (kind == StreamSender.WAIT)
            {
                return;
            }
            final int n = sender.planLength();
            assertEquals(written, sender.planSequence(), "the transfer's first byte");
            if (kind == StreamSender.DIRECT)
            {
                // the WRITE lands before its DATA is even sent: into the receive the advertisement named
                final int slot = slotOfAdvert(sender.planAdvertId());
                System.arraycopy(data, written, buffers[slot], (int)sender.planAdvertOffset(), n);
                toReceiver.add(new Message(StreamMessages.DATA, sender.planPhase(), sender.planSequence(), n,
                    sender.planAdvertId(), 0, null));
                direct++;
            }
            else
            {
                final int at = (int)sender.planRingOffset();
                for (int i = 0; i < n; i++)
                {
                    assertFalse(unread[at + i], "indirect transfer overwrites byte " + (at + i) + " not yet read");
                }
                final byte[] bytes = Arrays.copyOfRange(data, written, written + n);
                if (random.nextBoolean())
                {
                    System.arraycopy(bytes, 0, ring, at, n);
                    Arrays.fill(unread, at, at + n, true);
                    toReceiver.add(new Message(StreamMessages.DATA, sender.planPhase(), sender.planSequence(), n, 0,
                        at, null));
                }
                else
                {
                    toReceiver.add(new Message(StreamMessages.DATA, sender.planPhase(), sender.planSequence(), n, 0,
                        at, bytes));
                }
                indirect++;
            }
            written += n;
            writeLeft -= n;
        }

        /** @return the slot of the open receive an advertisement id names; fails when none open does. */
        int slotOfAdvert(final int id)
        {
            for (int slot = 0; slot < MAX_POSTED; slot++)
            {
                if (buffers[slot] != null && receiver.result(slot) == StreamReceiver.PENDING &&
                    receiver.advertIdOf(slot) == id)
                {
                    return slot;
                }
            }
            fail("a direct transfer into advertisement " + id + ", which names no receive still open");
            return -1;
        }

        void deliverToReceiver()
        {
            final Message m = toReceiver.poll();
            if (m == null)
            {
                return;
            }
            if (m.type() == StreamMessages.FIN)
            {
                receiver.onFin(m.sequence());
            }
            else if (m.id() != 0)
            {
                receiver.onDirect(m.phase(), m.sequence(), m.id(), m.length());
            }
            else
            {
                receiver.onIndirect(m.sequence(), m.offset(), m.length());
                if (m.inline() != null)
                {
                    System.arraycopy(m.inline(), 0, ring, (int)m.offset(), m.length());
                    Arrays.fill(unread, (int)m.offset(), (int)m.offset() + m.length(), true);
                }
            }
        }

        void deliverToSender()
        {
            final Message m = toSender.poll();
            if (m == null)
            {
                return;
            }
            if (m.type() == StreamMessages.ACK)
            {
                sender.onAck(m.sequence());
            }
            else
            {
                sender.onAdvert(m.phase(), m.sequence(), m.id(), m.length(), 0, 0, 0, 0, 0);
            }
        }

        void post()
        {
            final int head = receiver.head();
            int posted = 0;
            for (final byte[] buffer : buffers)
            {
                posted += buffer == null ? 0 : 1;
            }
            if (posted == MAX_POSTED || ended)
            {
                return;
            }
            final int length = 1 + random.nextInt(random.nextBoolean() ? 30 : 5000);
            // some receives land in memory the sender may not write: those are never advertised
            final int slot = receiver.post(length, random.nextInt(4) != 0);
            assertTrue(head == -1 || head != slot || posted == 0);
            buffers[slot] = new byte[length];
        }

        void receiverProgress()
        {
            int bytes;
            while ((bytes = receiver.copyable()) > 0)
            {
                final int slot = receiver.open();
                final int from = receiver.ringReadOffset();
                for (int i = 0; i < bytes; i++)
                {
                    final int at = (from + i) % RING;
                    assertTrue(unread[at], "copying byte " + at + " that no transfer put there");
                    buffers[slot][i] = ring[at];
                    unread[at] = false;
                }
                receiver.consumed(bytes);
            }
            if (receiver.ackDue())
            {
                toSender.add(new Message(StreamMessages.ACK, 0, receiver.ack(), 0, 0, 0, null));
            }
            while (receiver.nextAdvert())
            {
                final int slot = receiver.advertSlot();
                toSender.add(new Message(StreamMessages.ADVERT, receiver.phase(), receiver.advertSequence(),
                    receiver.lengthOf(slot), receiver.advertIdOf(slot), 0, null));
            }
        }

        void take()
        {
            final int slot = receiver.head();
            if (slot < 0 || receiver.result(slot) == StreamReceiver.PENDING)
            {
                return;
            }
            final int result = receiver.result(slot);
            receiver.take();
            if (result == StreamReceiver.END)
            {
                ended = true;
            }
            else
            {
                got.write(buffers[slot], 0, result);
            }
            buffers[slot] = null;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void everyInterleavingOfAdvertsAndSendsDeliversTheExactStream(final long seed)
    {
        final Run run = new Run(seed);
        for (int steps = 0; !run.ended; steps++)
        {
            assertTrue(steps < 5_000_000, "no end after " + steps + " steps: " + run.got.size() + " of " +
                run.data.length + " bytes delivered");
            run.step();
        }
        assertArrayEquals(run.data, run.got.toByteArray(), "seed " + seed);
        assertTrue(run.direct + run.indirect > 0);
    }

    @Test
    void overManySchedulesBothKindsOfTransferHappenAndStaleAdvertsAreThrownAway()
    {
        long direct = 0;
        long indirect = 0;
        long stale = 0;
        // seeded: the same 200 schedules each run (145 direct, 4,902 indirect, 2,672 stale when written)
        for (long seed = 100; seed < 300; seed++)
        {
            final Run run = new Run(seed);
            while (!run.ended)
            {
                run.step();
            }
            assertArrayEquals(run.data, run.got.toByteArray(), "seed " + seed);
            direct += run.direct;
            indirect += run.indirect;
            stale += run.sender.staleAdverts();
        }
        assertTrue(direct >= 100 && indirect >= 1000 && stale >= 100,
            "direct " + direct + ", indirect " + indirect + ", stale " + stale);
    }

    @Test
    void aDirectTransferIntoAnAdvertisementNotTheOldestOpenOneIsRefused()
    {
        final StreamReceiver receiver = new StreamReceiver(RING, MAX_POSTED);
        receiver.post(100, true);
        receiver.post(100, true);
        assertTrue(receiver.nextAdvert());
        final int first = receiver.advertIdOf(receiver.advertSlot());
        assertTrue(receiver.nextAdvert());
        final int second = receiver.advertIdOf(receiver.advertSlot());
        final StreamProtocolException refused = assertThrows(StreamProtocolException.class,
            () -> receiver.onDirect(receiver.phase(), 0, second, 10));
        assertTrue(refused.getMessage().contains("advertisement " + first), refused.getMessage());
    }

    @Test
    void anAdvertisementOfBytesNotYetSentIsRefused()
    {
        final StreamSender sender = new StreamSender(RING, 4);
        sender.onAdvert(2, 500, 1, 100, 0, 0, 0, 0, 0);
        final StreamProtocolException refused =
            assertThrows(StreamProtocolException.class, () -> sender.plan(10));
        assertTrue(refused.getMessage().contains("byte 500"), refused.getMessage());
    }
}
