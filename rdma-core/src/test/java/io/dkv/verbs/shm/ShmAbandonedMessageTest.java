package io.dkv.verbs.shm;

import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender killed between claiming room in a receiver's ring and committing its message leaves a record nothing
 * completes: the receiver passes over it once it finds the sender gone, and the messages behind it arrive. A live
 * sender's record is never passed over, however long it takes: one paused midway writes on when it wakes.
 */
class ShmAbandonedMessageTest
{
    private static final long NO_SUCH_DEVICE = 0x7e57_dead_0000_0001L;

    @TempDir
    Path shmDirectory;

    @Test
    @Timeout(60)
    void aMessageWhoseSenderIsGoneIsPassedOverAndTheOneBehindItArrives() throws IOException
    {
        try (Pair pair = new Pair(shmDirectory, () -> System.nanoTime()))
        {
            pair.abandonRecordFrom(NO_SUCH_DEVICE);
            pair.send(7);

            final WorkCompletion received = pair.awaitReceive(TimeUnit.SECONDS.toNanos(30));
            assertEquals(WcStatus.SUCCESS, received.status());
            assertEquals(7, received.immData());
            assertEquals(1, pair.abandoned.get());
        }
    }

    @Test
    @Timeout(60)
    void aHalfWrittenMessageOfALiveSenderHoldsTheRingUntilItsSenderFinishesIt() throws IOException
    {
        try (Pair pair = new Pair(shmDirectory, () -> System.nanoTime() + TimeUnit.DAYS.toNanos(1)))
        {
            // the sender's own device names it: its process lives, so it may be a live sender paused midway
            final int record = pair.abandonRecordFrom(pair.senderDevice());
            pair.send(8);

            assertEquals(null, pair.awaitReceive(TimeUnit.MILLISECONDS.toNanos(500)), "it waits behind the record");
            assertEquals(0, pair.abandoned.get());

            // the sender wakes and commits: a record of no connected peer, skipped, then the SEND behind it
            pair.commit(record);
            final WorkCompletion received = pair.awaitReceive(TimeUnit.SECONDS.toNanos(30));
            assertEquals(8, received.immData());
            assertEquals(0, pair.abandoned.get());
        }
    }

    /** Two shm devices, an RC queue pair on each connected to the other, the receiver's ring open to the test. */
    private static final class Pair implements AutoCloseable
    {
        final AtomicCounter abandoned;
        private final Device receiver;
        private final Device sender;
        private final CompletionQueue receiverCq;
        private final CompletionQueue senderCq;
        private final QueuePair receiving;
        private final QueuePair sending;
        private final MemoryRegion receiverMemory;
        private final MemoryRegion senderMemory;
        private final Arena arena = Arena.ofShared();
        private final WorkCompletion[] completions = {new WorkCompletion()};
        private ManyToOneRingBuffer ring;

        Pair(final Path shmDirectory, final NanoClock receiverClock)
        {
            final CountersManager counters = new CountersManager(new UnsafeBuffer(new byte[1 << 14]),
                new UnsafeBuffer(new byte[1 << 12]));
            abandoned = counters.newCounter("abandoned");
            receiver = Verbs.open(new VerbsContext().provider("shm").shmDirectory(shmDirectory)
                .nanoClock(receiverClock));
            receiver.abandonedMessagesCounter(abandoned);
            sender = Verbs.open(new VerbsContext().provider("shm").shmDirectory(shmDirectory));
            final ProtectionDomain receiverPd = receiver.allocPd();
            final ProtectionDomain senderPd = sender.allocPd();
            receiverCq = receiver.createCq(64);
            senderCq = sender.createCq(64);
            receiverMemory = receiverPd.allocate(4096, Access.ALL);
            senderMemory = senderPd.allocate(4096, Access.ALL);
            receiving = receiverPd.createQp(new QpInitAttributes().type(QpType.RC).cq(receiverCq));
            sending = senderPd.createQp(new QpInitAttributes().type(QpType.RC).cq(senderCq));
            bringUp(receiving, sender, sending.qpNum());
            bringUp(sending, receiver, receiving.qpNum());
            receiving.postRecv(new RecvWorkRequest().wrId(1).local(receiverMemory, 0, 64));
        }

        private static void bringUp(final QueuePair qp, final Device peer, final int peerQpn)
        {
            qp.modify(QpAttributes.init(Access.ALL));
            qp.modify(QpAttributes.rtr(peer.address(), peerQpn));
            qp.modify(QpAttributes.rts());
        }

        long senderDevice()
        {
            return sender.address().shmDeviceId();
        }

        /**
         * What a sender of that device killed after claiming room, with its id written, leaves in the ring.
         *
         * @return the claimed record.
         */
        int abandonRecordFrom(final long device) throws IOException
        {
            ring = receivingRing();
            final int index = ring.tryClaim(ShmMessageDescriptor.MSG_TYPE_ID, ShmMessageDescriptor.HEADER_LENGTH + 16);
            assertTrue(index >= 0);
            ring.buffer().putLong(index + ShmMessageDescriptor.SRC_DEVICE_OFFSET, device);
            return index;
        }

        void commit(final int record)
        {
            ring.commit(record);
        }

        void send(final int imm)
        {
            sending.postSend(new SendWorkRequest().wrId(2).opcode(Opcode.SEND_WITH_IMM).immData(imm)
                .sendFlags(SendFlags.SIGNALED).local(senderMemory, 0, 16));
        }

        /** @return the receive's completion, or null when none came within the time. */
        WorkCompletion awaitReceive(final long nanos)
        {
            final long deadline = System.nanoTime() + nanos;
            while (System.nanoTime() - deadline < 0)
            {
                senderCq.poll(completions);
                if (receiverCq.poll(completions) > 0)
                {
                    return completions[0];
                }
                Thread.onSpinWait();
            }
            return null;
        }

        private ManyToOneRingBuffer receivingRing() throws IOException
        {
            final Path directory = ShmDevice.deviceDirectory(shmDirectory().resolve(ShmDevice.ROOT_NAME),
                receiver.address().shmDeviceId());
            try (var files = Files.list(directory))
            {
                for (final Path file : files.filter(path -> path.getFileName().toString().startsWith("q-")).toList())
                {
                    final MemorySegment segment = ShmFiles.map(file, arena);
                    if (segment != null &&
                        segment.get(ValueLayout.JAVA_INT, ShmQueueDescriptor.NUMBER_OFFSET) == receiving.qpNum())
                    {
                        return ShmQueueFile.attach(segment, file.toString()).ring();
                    }
                }
            }
            throw new IllegalStateException("no queue file of QP " + receiving.qpNum() + " in " + directory);
        }

        private Path shmDirectory()
        {
            return ((ShmDevice)receiver).context().shmDirectory();
        }

        public void close()
        {
            for (final AutoCloseable closeable : List.<AutoCloseable>of(receiving, sending))
            {
                try
                {
                    closeable.close();
                }
                catch (final Exception ignore)
                {
                    // closing the devices frees the rest
                }
            }
            receiver.close();
            sender.close();
        }
    }
}
