package io.dkv.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The version log: what was synced comes back in order after a restart, a record a crash cut short ends the log, damage
 * elsewhere is refused naming the file, and only a prefix of closed segments at or below D is dropped.
 */
class VersionLogTest
{
    @TempDir
    Path dir;

    @Test
    void syncedVersionsComeBackInTheOrderAppended()
    {
        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            for (int i = 0; i < 1000; i++)
            {
                log.append(key(i % 10), 100 + i / 100, 1000 + i, i == 0 ? 0 : 999 + i, 0, value(i));
            }
            log.append(key(3), 111, 5000, KeyStore.SYNC_VERSION | 42, -1, new byte[0]);
            log.sync();
        }
        final List<String> read = readAll();
        assertEquals(1001, read.size());
        assertEquals("k0 e100 w1000 p0 x0 v0", read.getFirst());
        assertEquals("k9 e109 w1999 p1998 x0 v999", read.get(999));
        assertEquals("k3 e111 w5000 p" + (KeyStore.SYNC_VERSION | 42) + " x-1 ", read.getLast());
    }

    @Test
    void aRecordACrashCutShortEndsTheLogAndAppendsGoOnAfterIt() throws IOException
    {
        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            log.append(key(1), 7, 1, 0, 0, value(1));
            log.append(key(2), 7, 2, 0, 0, value(2));
        }
        final Path segment = only();
        final long whole = Files.size(segment);
        try (FileChannel cut = FileChannel.open(segment, StandardOpenOption.WRITE))
        {
            cut.truncate(whole - 3);
        }

        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            log.append(key(3), 8, 3, 0, 0, value(3));
        }
        assertEquals(List.of("k1 e7 w1 p0 x0 v1", "k3 e8 w3 p0 x0 v3"), readAll());
    }

    @Test
    void aDamagedRecordBeforeTheEndIsRefusedNamingTheFile() throws IOException
    {
        try (VersionLog log = VersionLog.open(dir, 200))
        {
            for (int i = 0; i < 20; i++)
            {
                log.append(key(i), 7, i + 1, 0, 0, value(i));
            }
        }
        final Path first = dir.resolve(VersionLogLayout.DIRECTORY).resolve(VersionLogLayout.fileName(1));
        final byte[] bytes = Files.readAllBytes(first);
        bytes[VersionLogLayout.FILE_HEADER_LENGTH + VersionLogLayout.EPOCH_OFFSET] ^= 1;
        Files.write(first, bytes);

        final IllegalStateException refused =
            assertThrows(IllegalStateException.class, () -> VersionLog.open(dir, 200));
        assertTrue(refused.getMessage().contains(first.toString()), refused.getMessage());
        assertTrue(refused.getMessage().contains("checksum"), refused.getMessage());
    }

    @Test
    void onlyAPrefixOfClosedSegmentsAtOrBelowDIsDropped()
    {
        try (VersionLog log = VersionLog.open(dir, 200))
        {
            // segments of about three records each; epochs 1, 1, 2, 5 (out of order: a late notice), 3, 3, ...
            final long[] epochs = {1, 1, 2, 2, 2, 2, 5, 3, 3, 3, 3, 3, 4, 4};
            for (int i = 0; i < epochs.length; i++)
            {
                log.append(key(i), epochs[i], i + 1, 0, 0, value(i));
            }
            final List<VersionLog.Segment> segments = log.segments();
            assertTrue(segments.size() >= 4, "segments: " + segments.size());

            final long bytesBefore = bytes(log);
            final List<String> offered = new ArrayList<>();
            for (final VersionLog.Segment segment : log.droppable(3))
            {
                log.cursor(segment).next(Integer.MAX_VALUE, (key, epoch, writeId, previous, expireAt, value) ->
                    offered.add(new String(key, StandardCharsets.US_ASCII) + "@" + epoch));
            }
            final int dropped = dropThrough(log, 3);

            assertTrue(dropped >= 1, "dropped " + dropped);
            assertTrue(offered.stream().noneMatch(version -> version.endsWith("@5")), offered.toString());
            assertTrue(bytes(log) < bytesBefore);
            assertEquals(0, dropThrough(log, 3), "the segment holding epoch 5 stops the prefix");
            assertTrue(dropThrough(log, 1_000) >= 1, "past the late epoch 5 the rest but the current go");
            assertEquals(1, log.segments().size(), "the segment appended to is never dropped");
        }
        final List<String> left = readAll();
        assertTrue(left.stream().allMatch(version -> version.contains(" e4 ")), left.toString());
    }

    @Test
    void aCutRecordVoidsTheVersionsBeforeItAboveItsCutAndNothingAfterIt()
    {
        try (VersionLog log = VersionLog.open(dir, 200))
        {
            log.append(key(1), 5, 1, 0, 0, value(1));
            log.append(key(2), 8, 2, 0, 0, value(2));
            log.append(key(3), 6, 3, 0, 0, value(3));
            log.appendCut(6);
            log.append(key(4), 9, 4, 0, 0, value(4));
            log.append(key(5), 7, 5, 0, 0, value(5));
            assertEquals(List.of("k1 e5", "k3 e6", "k4 e9", "k5 e7"), keysAndEpochs(log), "as appended");
        }
        try (VersionLog log = VersionLog.open(dir, 200))
        {
            assertEquals(List.of("k1 e5", "k3 e6", "k4 e9", "k5 e7"), keysAndEpochs(log), "after a restart");
            log.appendCut(5);
            assertEquals(List.of("k1 e5"), keysAndEpochs(log), "a second cut, lower, voids the rest");
            assertTrue(dropThrough(log, 100) >= 1);
            log.append(key(6), 3, 6, 0, 0, value(6));
            assertEquals(List.of("k6 e3"), keysAndEpochs(log).stream().filter(v -> v.startsWith("k6")).toList(),
                "a version appended after every cut is no cut's to void");
        }
    }

    /** What the sweep does with what it read: the closed segments at or below {@code d} dropped, oldest first. */
    private static int dropThrough(final VersionLog log, final long d)
    {
        final List<VersionLog.Segment> drop = log.droppable(d);
        drop.forEach(log::dropOldest);
        return drop.size();
    }

    private static long bytes(final VersionLog log)
    {
        return log.segments().stream().mapToLong(segment -> segment.bytes).sum();
    }

    private static List<String> keysAndEpochs(final VersionLog log)
    {
        final List<String> read = new ArrayList<>();
        log.forEach((key, epoch, writeId, previous, expireAt, value) ->
            read.add(new String(key, StandardCharsets.US_ASCII) + " e" + epoch));
        return read;
    }

    @Test
    void aValueLargerThanTheBufferIsWrittenWhole()
    {
        final byte[] big = new byte[3 << 20];
        big[0] = 7;
        big[big.length - 1] = 9;
        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            log.append(key(1), 1, 1, 0, 0, value(1));
            log.append(key(2), 1, 2, 0, 0, big);
            log.append(key(3), 1, 3, 0, 0, value(3));
        }
        final List<byte[]> values = new ArrayList<>();
        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            log.forEach((key, epoch, writeId, previous, expireAt, value) -> values.add(value));
        }
        assertEquals(3, values.size());
        assertEquals(big.length, values.get(1).length);
        assertEquals(9, values.get(1)[big.length - 1]);
        assertEquals("v3", new String(values.get(2), StandardCharsets.US_ASCII));
    }

    private List<String> readAll()
    {
        final List<String> read = new ArrayList<>();
        try (VersionLog log = VersionLog.open(dir, VersionLog.SEGMENT_BYTES_DEFAULT))
        {
            log.forEach((key, epoch, writeId, previous, expireAt, value) -> read.add(
                new String(key, StandardCharsets.US_ASCII) + " e" + epoch + " w" + writeId + " p" + previous +
                " x" + expireAt + " " + new String(value, StandardCharsets.US_ASCII)));
        }
        return read;
    }

    private Path only() throws IOException
    {
        try (var files = Files.list(dir.resolve(VersionLogLayout.DIRECTORY)))
        {
            final List<Path> all = files.toList();
            assertEquals(1, all.size(), all.toString());
            return all.getFirst();
        }
    }

    private static byte[] key(final int i)
    {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(final int i)
    {
        return ("v" + i).getBytes(StandardCharsets.US_ASCII);
    }
}
