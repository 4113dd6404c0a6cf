package io.dkv.raas.driver;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasPair;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.cnc.CncDescriptor;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client killed between claiming room in its driver's command ring and committing the command leaves a record the
 * driver cannot read past: the driver passes over it once the ring stood still for longer than a client may be silent,
 * by the driver's clock, and not before, so that a live client's command is never cut short.
 */
class CommandRingUnblockTest
{
    private static final long CLIENT_TIMEOUT_MS = 1_000;
    private static final long WAIT_SECONDS = 30;

    @Test
    @Timeout(60)
    void aCommandLeftHalfWrittenByADeadClientHoldsTheRingOnlyUntilTheClientTimeout() throws Exception
    {
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        final AtomicLong driverJumpMs = new AtomicLong();
        final NanoClock driverClock = () -> System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(driverJumpMs.get());
        final RaasContext context = RaasPair.context("shm", 1).driverName(name).clientTimeoutMs((int)CLIENT_TIMEOUT_MS)
            .nanoClock(driverClock);
        try (StandaloneDriver driver = StandaloneDriver.launch(context, new StaticDirectory());
            Arena arena = Arena.ofShared())
        {
            // what a client killed after tryClaim and before commit leaves
            final ManyToOneRingBuffer ring = commandRing(driver, arena);
            assertTrue(ring.tryClaim(1, 16) >= 0);
            final CompletableFuture<String> attach = CompletableFuture.supplyAsync(() -> attachAndOpen(name));

            // many heartbeats of the conductor, none of them past the timeout by its clock
            Thread.sleep(5 * 100 + 100);
            assertFalse(attach.isDone(), "the attach waits behind the half-written command");
            assertEquals(0, unblocked(driver), "a command half-written for less than the client timeout stays");

            driverJumpMs.set(CLIENT_TIMEOUT_MS + 1_000);
            assertEquals("opened", attach.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(1, unblocked(driver));
        }
    }

    private static long unblocked(final StandaloneDriver driver)
    {
        return driver.driver().counters().get(DriverCounter.COMMANDS_UNBLOCKED).get();
    }

    /** Attach, trying again while the driver does not answer, and open a connection to the driver's own node. */
    private static String attachAndOpen(final String name)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true)
        {
            try (Raas raas = AttachedRaas.attach(new RaasContext().driverName(name).timeoutMs(2_000)
                .requestSlots(64).clientDataBytes(1 << 16)))
            {
                raas.open(1, null).close();
                return "opened";
            }
            catch (final RaasException ex)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw ex;
                }
            }
        }
    }

    /** The driver's command ring, mapped as a client maps it. */
    private static ManyToOneRingBuffer commandRing(final StandaloneDriver driver, final Arena arena) throws IOException
    {
        final MemorySegment cnc;
        try (FileChannel channel = FileChannel.open(driver.directory().resolve(CncDescriptor.CNC_FILE),
            StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            cnc = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
        }
        final int length = cnc.get(ValueLayout.JAVA_INT, CncDescriptor.TO_DRIVER_LENGTH_OFFSET);
        return new ManyToOneRingBuffer(new UnsafeBuffer(cnc.address() + CncDescriptor.CNC_HEADER_LENGTH,
            length + RingBufferDescriptor.TRAILER_LENGTH));
    }
}
