package io.dkv.raas;

import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.StandaloneDriver;
import io.dkv.verbs.ChildProcess;
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
import java.util.List;
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
 * by the driver's clock, and a client's process was found gone meanwhile; never while every client lives, so that a
 * live client's command is never cut short.
 */
class CommandRingUnblockTest
{
    private static final long CLIENT_TIMEOUT_MS = 1_000;
    private static final long WAIT_SECONDS = 30;
    /** A command type no driver knows: what a client that woke commits is read and refused, not acted on. */
    private static final int UNKNOWN_COMMAND = 0x7e57;

    @Test
    @Timeout(60)
    void aCommandLeftHalfWrittenByADeadClientHoldsTheRingOnlyUntilTheClientTimeout() throws Exception
    {
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        final AtomicLong driverJumpMs = new AtomicLong();
        try (StandaloneDriver driver = launch(name, driverJumpMs);
            ChildProcess doomed = ChildProcess.start("doomed client", List.of(), RaasChild.class);
            Arena arena = Arena.ofShared())
        {
            doomed.call("attach " + name);
            assertEquals(1, driver.clientCount());
            // what the client leaves when killed after tryClaim and before commit
            final ManyToOneRingBuffer ring = commandRing(driver, arena);
            assertTrue(ring.tryClaim(1, 16) >= 0);
            doomed.kill();
            final CompletableFuture<String> attach = CompletableFuture.supplyAsync(() -> attachAndOpen(name));

            // many heartbeats of the conductor, which removes the dead client, none past the timeout by its clock
            Thread.sleep(5 * 100 + 100);
            assertFalse(attach.isDone(), "the attach waits behind the half-written command");
            assertEquals(0, unblocked(driver), "a command half-written for less than the client timeout stays");

            driverJumpMs.set(CLIENT_TIMEOUT_MS + 1_000);
            assertEquals("opened", attach.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(1, unblocked(driver));
        }
    }

    @Test
    @Timeout(60)
    void aCommandHalfWrittenWhileEveryClientLivesIsWaitedForHoweverLong() throws Exception
    {
        final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);
        final AtomicLong driverJumpMs = new AtomicLong();
        try (StandaloneDriver driver = launch(name, driverJumpMs);
            Arena arena = Arena.ofShared())
        {
            // a live client paused midway: its process is there, and it writes on when it wakes
            final ManyToOneRingBuffer ring = commandRing(driver, arena);
            final int record = ring.tryClaim(UNKNOWN_COMMAND, 16);
            assertTrue(record >= 0);
            final CompletableFuture<String> attach = CompletableFuture.supplyAsync(() -> attachAndOpen(name));
            driverJumpMs.set(60 * CLIENT_TIMEOUT_MS);

            Thread.sleep(5 * 100 + 100);
            assertFalse(attach.isDone(), "the attach waits behind the live client's command");
            assertEquals(0, unblocked(driver));

            ring.commit(record);
            assertEquals("opened", attach.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(0, unblocked(driver));
        }
    }

    private static StandaloneDriver launch(final String name, final AtomicLong driverJumpMs)
    {
        final NanoClock driverClock = () -> System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(driverJumpMs.get());
        return StandaloneDriver.launch(RaasPair.context("shm", 1).driverName(name)
            .clientTimeoutMs((int)CLIENT_TIMEOUT_MS).nanoClock(driverClock), new StaticDirectory());
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
