package io.dkv.verbs.shm;

import io.dkv.verbs.Device;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an shm device's start leaves to threads of its own, so that the thread opening it does not wait: linking the
 * libc calls files are mapped with, and sweeping the directories of devices whose process died. Both still happen.
 */
class ShmStartPathTest
{
    @TempDir
    Path shm;

    /**
     * A device's start sweeps dead devices' directories on a thread of its own, which nothing waits for: it may still
     * be deleting under the temporary directory when JUnit removes it (a fresh-clone CI run once failed so).
     */
    @AfterEach
    void awaitTheBackgroundSweep() throws InterruptedException
    {
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if ("dkv-shm-sweep".equals(thread.getName()))
            {
                thread.join(30_000);
            }
        }
    }

    @Test
    @Timeout(60)
    void aDeadDevicesDirectoryIsSweptAfterTheNextDeviceOpens() throws Exception
    {
        final Path root = shm.resolve(ShmDevice.ROOT_NAME);
        final Path dead = root.resolve("00000000000000aa");
        Files.createDirectories(dead);
        Files.writeString(dead.resolve("mr-0000000000000001"), "left by a process that was killed");
        // no control file and untouched for a minute: a device that died before it could write one
        Files.setLastModifiedTime(dead, FileTime.from(Instant.now().minusSeconds(120)));

        try (Device device = Verbs.open(new VerbsContext().provider("shm").shmDirectory(shm)))
        {
            while (Files.exists(dead))
            {
                Thread.sleep(5);
            }
            assertTrue(Files.isDirectory(root.resolve(String.format("%016x", ((ShmDevice)device).deviceId()))),
                "the live device's own directory stays");
        }
    }

    @Test
    void aFixedIdIsTakenBackFromADeadDeviceAtOnceAndRefusedToALiveOne() throws Exception
    {
        final Path root = shm.resolve(ShmDevice.ROOT_NAME);
        final long id = 0x2a;
        final Path dead = root.resolve(String.format("%016x", id));
        Files.createDirectories(dead);
        // as a MetaServer killed a moment ago leaves it: a control file naming a process that no longer runs
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (Arena arena = Arena.ofShared())
        {
            ShmControlFile.create(ShmFiles.create(dead.resolve(ShmDevice.CONTROL_FILE),
                ShmControlDescriptor.fileLength(16, 16), arena), id, gone.pid(), 16, 16);
        }
        Files.writeString(dead.resolve("mr-0000000000000001"), "left by a process that was killed");
        try (Device device = Verbs.open(new VerbsContext().provider("shm").shmDirectory(shm).shmDeviceId(id)))
        {
            assertEquals(id, ((ShmDevice)device).deviceId(), "the id named, taken back from the dead device");
            final VerbsException taken = assertThrows(VerbsException.class,
                () -> Verbs.open(new VerbsContext().provider("shm").shmDirectory(shm).shmDeviceId(id)));
            assertTrue(taken.getMessage().contains("in use by a live device"), taken.getMessage());
        }
    }

    @Test
    @Timeout(120)
    void aSweepRacingAFixedIdTakenBackNeverRemovesTheNewDevicesDirectory() throws Exception
    {
        final Path root = shm.resolve(ShmDevice.ROOT_NAME);
        final long id = 0x2b;
        final Path dir = root.resolve(String.format("%016x", id));
        for (int round = 0; round < 100; round++)
        {
            leaveDeadDevice(dir, id);
            final Thread sweep = Thread.ofPlatform().start(() -> ShmDevice.sweepDeadDevices(root,
                SystemEpochClock.INSTANCE));
            try (Device device = Verbs.open(new VerbsContext().provider("shm").shmDirectory(shm).shmDeviceId(id)))
            {
                sweep.join();
                assertTrue(Files.exists(dir.resolve(ShmDevice.CONTROL_FILE)),
                    "round " + round + ": the live device's control file stays after a sweep ran beside its start");
                final VerbsException taken = assertThrows(VerbsException.class,
                    () -> Verbs.open(new VerbsContext().provider("shm").shmDirectory(shm).shmDeviceId(id)));
                assertTrue(taken.getMessage().contains("in use by a live device"), taken.getMessage());
            }
        }
    }

    private static void leaveDeadDevice(final Path dir, final long id) throws Exception
    {
        Files.createDirectories(dir);
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        try (Arena arena = Arena.ofShared())
        {
            ShmControlFile.create(ShmFiles.create(dir.resolve(ShmDevice.CONTROL_FILE),
                ShmControlDescriptor.fileLength(16, 16), arena), id, gone.pid(), 16, 16);
        }
    }

    @Test
    void theLinkedCallsMapAFileAsFileChannelDoes() throws Exception
    {
        NativeMapping.link();
        assertTrue(NativeMapping.isAvailable(), "libc's open, lseek, mmap and close on Linux");
        final Path file = shm.resolve("mapped");
        final byte[] bytes = new byte[8192];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(i * 31);
        }
        Files.write(file, bytes);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment mapping = NativeMapping.map(file, arena);
            assertEquals(bytes.length, mapping.byteSize());
            assertArrayEquals(bytes, mapping.toArray(ValueLayout.JAVA_BYTE));
            mapping.set(ValueLayout.JAVA_BYTE, 0, (byte)7);
            // refused before Linux 5.14 (false, and callers touch the pages): either way the contents stay
            NativeMapping.populate(mapping);
            assertEquals(7, mapping.get(ValueLayout.JAVA_BYTE, 0), "the mapping is the file's pages, writable");
            assertNull(NativeMapping.map(shm.resolve("missing"), arena), "no file: null, as ShmFiles.map expects");
        }
        assertEquals(7, Files.readAllBytes(file)[0], "shared: the write reached the file");
    }
}
