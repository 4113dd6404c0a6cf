package io.dkv.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A memory node's versions as a log ({@link VersionLogLayout}): appended in the order the node takes its writers'
 * notices, one record a version, buffered and written to the current segment at each {@link #flush}, forced to the
 * disk at each {@link #sync}, which the node makes before it keeps a durable epoch that counts on them. Segments roll
 * at a size; a prefix of the closed segments whose versions are all at or below the cluster's durable epoch D is
 * dropped ({@link #dropOldest}) once the caller has kept what it still needs of them. Opened on a directory with
 * segments, it reads them all, ends the log before a record a crash cut short in the last one, and refuses one damaged
 * elsewhere, naming the file. A rollback to a cut C appends a cut record ({@link #appendCut}): every version before it
 * whose epoch is above C is void from then on, and no reader here hands it out. A write that fails (a full disk) is
 * cut off the segment again, so that the log never holds a torn record before a whole one. One writer: the request
 * server's thread (and the node's start, before it runs).
 */
final class VersionLog implements AutoCloseable
{
    /** Bytes a segment grows to before the next append opens another. */
    static final int SEGMENT_BYTES_DEFAULT = 16 << 20;
    private static final int BUFFER_BYTES = 1 << 20;
    private static final byte[] EMPTY = new byte[0];

    /** A segment file: its sequence and path, the greatest epoch among its versions, and its length. */
    static final class Segment
    {
        final long sequence;
        final Path path;
        long maxEpoch = -1;
        long bytes;
        long versions;

        Segment(final long sequence, final Path path)
        {
            this.sequence = sequence;
            this.path = path;
        }
    }

    /**
     * Receives a live version where it lies in a segment's bytes, nothing copied: the key at {@code keyAt} for
     * {@code keyLength} bytes, the value after it for {@code valueLength}. The bytes stay the cursor's.
     */
    @FunctionalInterface
    interface RecordVisitor
    {
        void visit(byte[] bytes, int keyAt, int keyLength, int valueLength, long epoch, long writeId, long previous,
            long expireAt);
    }

    /** A cut record: where it is in the log, and the cut. */
    private record Cut(long sequence, long offset, long epoch)
    {
    }

    /** Reads one segment's live versions a slice at a time, for a caller that must not hold its thread long. */
    final class Cursor
    {
        private final Segment segment;
        private final byte[] bytes;
        private final ByteBuffer file;
        private final CRC32C check = new CRC32C();
        private int at = VersionLogLayout.FILE_HEADER_LENGTH;

        private Cursor(final Segment segment) throws IOException
        {
            this.segment = segment;
            this.bytes = Files.readAllBytes(segment.path);
            this.file = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
            checkHeader(segment, file, bytes.length);
        }

        Segment segment()
        {
            return segment;
        }

        /**
         * Hand up to {@code limit} records' live versions to {@code visitor}.
         *
         * @return records read (void ones and cut records included); fewer than {@code limit} at the segment's end.
         */
        int next(final int limit, final KeyStore.VersionVisitor visitor)
        {
            return next(limit, (from, keyAt, keyLength, valueLength, epoch, writeId, previous, expireAt) ->
                visitor.visit(Arrays.copyOfRange(from, keyAt, keyAt + keyLength), epoch, writeId, previous, expireAt,
                    Arrays.copyOfRange(from, keyAt + keyLength, keyAt + keyLength + valueLength)));
        }

        /** As {@link #next(int, KeyStore.VersionVisitor)}, each version where it lies, nothing copied. */
        int next(final int limit, final RecordVisitor visitor)
        {
            int read = 0;
            while (read < limit && at < bytes.length)
            {
                at = visit(segment, bytes, file, at, check, visitor);
                read++;
            }
            return read;
        }
    }

    private final Path directory;
    private final int segmentBytes;
    /** The cut records in the segments kept, oldest first (rare: one a rollback). */
    private final List<Cut> cuts = new ArrayList<>();
    /** Where the current segment's whole records end on disk: a write that fails is cut back to it. */
    private long goodEnd;
    /** Appended since the last {@link #sync}. */
    private boolean dirty;
    /** A segment was opened since the last {@link #sync}: the directory's entry for it is forced too. */
    private boolean rolled;
    /** Every segment, oldest first; the last is the one appended to. */
    private final List<Segment> segments = new ArrayList<>();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.BIG_ENDIAN);
    private final CRC32C crc = new CRC32C();
    private FileChannel channel;
    /** Segments closed since the last sync, whose bytes the next sync forces too. */
    private final List<FileChannel> unforced = new ArrayList<>();
    private boolean closed;

    private VersionLog(final Path directory, final int segmentBytes)
    {
        this.directory = directory;
        this.segmentBytes = segmentBytes;
    }

    /**
     * @param dataDirectory the memory node's data directory: the log lives in its {@link VersionLogLayout#DIRECTORY}.
     * @param segmentBytes  bytes a segment grows to before another is opened.
     * @throws IllegalStateException naming the file when a segment is damaged anywhere but at the end of the last.
     */
    static VersionLog open(final Path dataDirectory, final int segmentBytes)
    {
        final VersionLog log = new VersionLog(dataDirectory.resolve(VersionLogLayout.DIRECTORY), segmentBytes);
        try
        {
            log.openSegments();
            return log;
        }
        catch (final IOException ex)
        {
            log.closeQuietly();
            throw new IllegalStateException("cannot open the version log in " + log.directory + ": " +
                ex.getMessage() + " (free space there, or move --data-dir to a larger disk)", ex);
        }
        catch (final RuntimeException ex)
        {
            log.closeQuietly();
            throw ex;
        }
    }

    /** Add a version: written at the next {@link #flush}, on the disk after the next {@link #sync}. */
    void append(final byte[] key, final long epoch, final long writeId, final long previous, final long expireAt,
        final byte[] value)
    {
        appendRecord(key.length, key, epoch, writeId, previous, expireAt, value);
    }

    /**
     * Void every version appended so far whose epoch is above {@code cut}: the node's keys were rolled back to it. On
     * the disk once this returns.
     */
    void appendCut(final long cut)
    {
        final Segment current = segments.getLast();
        cuts.add(new Cut(current.sequence, VersionLogLayout.FILE_HEADER_LENGTH + current.bytes, cut));
        appendRecord(VersionLogLayout.CUT_KEY_LENGTH, EMPTY, cut, 0, 0, 0, EMPTY);
        sync();
    }

    private void appendRecord(final int keyLength, final byte[] key, final long epoch, final long writeId,
        final long previous, final long expireAt, final byte[] value)
    {
        final int length = VersionLogLayout.recordLength(key.length, value.length);
        try
        {
            if (length > buffer.remaining())
            {
                flush();
            }
            final ByteBuffer into = length <= buffer.capacity() ? buffer :
                ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
            final int start = into.position();
            into.putInt(length).putInt(0).putLong(epoch).putLong(writeId).putLong(previous).putLong(expireAt)
                .putInt(keyLength).put(key).put(value);
            final int end = into.position();
            crc.reset();
            into.limit(end).position(start + VersionLogLayout.CHECKED_OFFSET);
            crc.update(into);
            into.limit(into.capacity()).position(end);
            into.putInt(start + VersionLogLayout.CHECKSUM_OFFSET, (int)crc.getValue());
            dirty = true;
            if (into != buffer)
            {
                into.flip();
                writeOrCutBack(into);
            }
            final Segment current = segments.getLast();
            current.bytes += length;
            if (keyLength != VersionLogLayout.CUT_KEY_LENGTH)
            {
                current.versions++;
                current.maxEpoch = Math.max(current.maxEpoch, epoch);
            }
            if (current.bytes >= segmentBytes)
            {
                roll();
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot append to the version log in " + directory + ": " +
                ex.getMessage(), ex);
        }
    }

    /** Write what {@link #append} buffered to the current segment (not forced to the disk). */
    void flush()
    {
        if (buffer.position() == 0)
        {
            return;
        }
        try
        {
            buffer.flip();
            writeOrCutBack(buffer);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the version log in " + directory + ": " + ex.getMessage(),
                ex);
        }
    }

    /** Write and force every version appended so far: after it, a crash of the host keeps them. */
    void sync()
    {
        if (!dirty && !rolled)
        {
            return;
        }
        flush();
        try
        {
            for (final FileChannel closedSegment : unforced)
            {
                closedSegment.force(false);
                closedSegment.close();
            }
            unforced.clear();
            channel.force(false);
            if (rolled)
            {
                // a new segment's name is on the disk only once its directory is
                try (FileChannel entries = FileChannel.open(directory, StandardOpenOption.READ))
                {
                    entries.force(true);
                }
                rolled = false;
            }
            dirty = false;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot fsync the version log in " + directory + ": " + ex.getMessage(),
                ex);
        }
    }

    /** Hand every version in the log to {@code visitor}, oldest segment first, each in the order appended. */
    void forEach(final KeyStore.VersionVisitor visitor)
    {
        flush();
        for (final Segment segment : segments)
        {
            read(segment, visitor);
        }
    }

    /**
     * @param d the cluster's durable epoch.
     * @return the leading closed segments whose every version is at or below {@code d}: what may be dropped
     * ({@link #dropOldest}, one at a time) once the caller has read them ({@link #cursor}) and kept what it still
     * needs.
     */
    List<Segment> droppable(final long d)
    {
        final List<Segment> out = new ArrayList<>();
        for (int i = 0; i < segments.size() - 1 && segments.get(i).maxEpoch <= d; i++)
        {
            out.add(segments.get(i));
        }
        return out;
    }

    /** @return a cursor over a segment's versions (its bytes read now, whole). */
    Cursor cursor(final Segment segment)
    {
        flush();
        try
        {
            return new Cursor(segment);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + segment.path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Delete the oldest segment, which must be {@code segment} and closed: what it held that is still needed was kept
     * elsewhere.
     */
    void dropOldest(final Segment segment)
    {
        if (segments.size() < 2 || segments.getFirst() != segment)
        {
            throw new IllegalArgumentException("segment " + segment.sequence + " is not the oldest closed one of " +
                directory);
        }
        try
        {
            Files.deleteIfExists(segment.path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete " + segment.path + ": " + ex.getMessage(), ex);
        }
        segments.removeFirst();
        // a cut voids only what comes before it: with its segment gone it has nothing left to void
        cuts.removeIf(cut -> cut.sequence <= segment.sequence);
    }

    /** @return the segments, oldest first (the last is appended to); read-only. */
    List<Segment> segments()
    {
        return List.copyOf(segments);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            sync();
        }
        finally
        {
            closeQuietly();
        }
    }

    private void openSegments() throws IOException
    {
        Files.createDirectories(directory);
        final List<Long> sequences = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory))
        {
            files.forEach(path ->
            {
                final long sequence = VersionLogLayout.sequenceOf(path.getFileName().toString());
                if (sequence > 0)
                {
                    sequences.add(sequence);
                }
            });
        }
        sequences.sort(Long::compare);
        for (int i = 0; i < sequences.size(); i++)
        {
            final long sequence = sequences.get(i);
            final Segment segment = new Segment(sequence, directory.resolve(VersionLogLayout.fileName(sequence)));
            final boolean last = i == sequences.size() - 1;
            if (last && Files.size(segment.path) < VersionLogLayout.FILE_HEADER_LENGTH)
            {
                // opened by a roll whose header a crash cut short: nothing was appended to it
                Files.delete(segment.path);
                break;
            }
            scan(segment, last);
            segments.add(segment);
        }
        if (segments.isEmpty())
        {
            startSegment(1);
        }
        else
        {
            final Segment last = segments.getLast();
            channel = FileChannel.open(last.path, StandardOpenOption.WRITE);
            goodEnd = VersionLogLayout.FILE_HEADER_LENGTH + last.bytes;
            channel.position(goodEnd);
        }
    }

    /** Read a segment's versions to find its greatest epoch and its end; cut a torn tail off the last one. */
    private void scan(final Segment segment, final boolean last) throws IOException
    {
        final long end = walk(segment, last);
        final long size = Files.size(segment.path);
        if (end < size)
        {
            try (FileChannel cut = FileChannel.open(segment.path, StandardOpenOption.WRITE))
            {
                cut.truncate(end);
                cut.force(false);
            }
        }
    }

    private void read(final Segment segment, final KeyStore.VersionVisitor visitor)
    {
        try
        {
            // a segment holds fewer records than Integer.MAX_VALUE: one call reads it all
            new Cursor(segment).next(Integer.MAX_VALUE, visitor);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + segment.path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Go through a segment's records to count them into it, its cut records into {@link #cuts}.
     *
     * @param tornEnds whether a record cut short ends the segment (its last one) rather than being refused.
     * @return the offset just past the last whole record.
     */
    private long walk(final Segment segment, final boolean tornEnds) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(segment.path);
        final ByteBuffer file = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        checkHeader(segment, file, bytes.length);
        int at = VersionLogLayout.FILE_HEADER_LENGTH;
        final CRC32C check = new CRC32C();
        while (at < bytes.length)
        {
            final String fault = fault(file, at, check);
            if (fault != null)
            {
                if (tornEnds)
                {
                    break;
                }
                throw damaged(segment, at, fault);
            }
            final int length = file.getInt(at + VersionLogLayout.LENGTH_OFFSET);
            final long epoch = file.getLong(at + VersionLogLayout.EPOCH_OFFSET);
            segment.bytes += length;
            if (file.getInt(at + VersionLogLayout.KEY_LENGTH_OFFSET) == VersionLogLayout.CUT_KEY_LENGTH)
            {
                cuts.add(new Cut(segment.sequence, at, epoch));
            }
            else
            {
                segment.versions++;
                segment.maxEpoch = Math.max(segment.maxEpoch, epoch);
            }
            at += length;
        }
        return at;
    }

    /**
     * Hand the record at {@code at} to {@code visitor} when it is a version no later cut record voids.
     *
     * @return the offset of the next record.
     */
    private int visit(final Segment segment, final byte[] bytes, final ByteBuffer file, final int at,
        final CRC32C check, final RecordVisitor visitor)
    {
        final String fault = fault(file, at, check);
        if (fault != null)
        {
            throw damaged(segment, at, fault);
        }
        final int length = file.getInt(at + VersionLogLayout.LENGTH_OFFSET);
        final int keyLength = file.getInt(at + VersionLogLayout.KEY_LENGTH_OFFSET);
        final long epoch = file.getLong(at + VersionLogLayout.EPOCH_OFFSET);
        if (keyLength == VersionLogLayout.CUT_KEY_LENGTH || epoch > cutAfter(segment.sequence, at))
        {
            return at + length;
        }
        visitor.visit(bytes, at + VersionLogLayout.RECORD_HEADER_LENGTH, keyLength,
            length - VersionLogLayout.RECORD_HEADER_LENGTH - keyLength, epoch,
            file.getLong(at + VersionLogLayout.WRITE_ID_OFFSET), file.getLong(at + VersionLogLayout.PREVIOUS_OFFSET),
            file.getLong(at + VersionLogLayout.EXPIRE_AT_OFFSET));
        return at + length;
    }

    /** @return the least cut of the cut records after the place given, or Long.MAX_VALUE when none is. */
    private long cutAfter(final long sequence, final long offset)
    {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < cuts.size(); i++)
        {
            final Cut cut = cuts.get(i);
            if (cut.sequence > sequence || cut.sequence == sequence && cut.offset > offset)
            {
                least = Math.min(least, cut.epoch);
            }
        }
        return least;
    }

    private static void checkHeader(final Segment segment, final ByteBuffer file, final int length)
    {
        if (length < VersionLogLayout.FILE_HEADER_LENGTH ||
            file.getInt(VersionLogLayout.MAGIC_OFFSET) != VersionLogLayout.MAGIC ||
            file.getInt(VersionLogLayout.FORMAT_OFFSET) != VersionLogLayout.FORMAT ||
            file.getLong(VersionLogLayout.SEQUENCE_OFFSET) != segment.sequence)
        {
            throw new IllegalStateException(segment.path + " is no segment of a version log of format " +
                VersionLogLayout.FORMAT + " (its header is wrong): move it away; the versions it held are lost to a " +
                "rollback, the keys themselves are in the key store");
        }
    }

    private static IllegalStateException damaged(final Segment segment, final int at, final String fault)
    {
        return new IllegalStateException(segment.path + " is damaged at byte " + at + " (" + fault + "): " +
            "move the node's versions directory away to start it; a rollback to the pool's cut then finds " +
            "no version of that log");
    }

    /** @return what is wrong with the record at {@code at}, or null when it is whole. */
    private static String fault(final ByteBuffer file, final int at, final CRC32C check)
    {
        final int available = file.capacity() - at;
        if (available < VersionLogLayout.RECORD_HEADER_LENGTH)
        {
            return available + " bytes left, under a record's header";
        }
        final int length = file.getInt(at + VersionLogLayout.LENGTH_OFFSET);
        final int keyLength = file.getInt(at + VersionLogLayout.KEY_LENGTH_OFFSET);
        final boolean cut = keyLength == VersionLogLayout.CUT_KEY_LENGTH;
        if (length < VersionLogLayout.RECORD_HEADER_LENGTH || length > available ||
            cut && length != VersionLogLayout.RECORD_HEADER_LENGTH || !cut && keyLength < 0 ||
            keyLength > length - VersionLogLayout.RECORD_HEADER_LENGTH)
        {
            return "a record of length " + length + " and key length " + keyLength + " with " + available +
                " bytes left";
        }
        check.reset();
        check.update(file.array(), at + VersionLogLayout.CHECKED_OFFSET, length - VersionLogLayout.CHECKED_OFFSET);
        if ((int)check.getValue() != file.getInt(at + VersionLogLayout.CHECKSUM_OFFSET))
        {
            return "its checksum does not match";
        }
        return null;
    }

    private void roll() throws IOException
    {
        flush();
        unforced.add(channel);
        startSegment(segments.getLast().sequence + 1);
        rolled = true;
    }

    private void startSegment(final long sequence) throws IOException
    {
        final Segment segment = new Segment(sequence, directory.resolve(VersionLogLayout.fileName(sequence)));
        channel = FileChannel.open(segment.path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        final ByteBuffer header = ByteBuffer.allocate(VersionLogLayout.FILE_HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN)
            .putInt(VersionLogLayout.MAGIC).putInt(VersionLogLayout.FORMAT).putLong(sequence).flip();
        writeFully(header);
        goodEnd = VersionLogLayout.FILE_HEADER_LENGTH;
        segments.add(segment);
    }

    /**
     * Write {@code from} whole at the segment's end, or, when the disk refuses it, cut the segment back to its last
     * whole record and forget what was buffered: the log never holds a torn record before a whole one.
     */
    private void writeOrCutBack(final ByteBuffer from) throws IOException
    {
        try
        {
            writeFully(from);
            goodEnd = channel.position();
            buffer.clear();
        }
        catch (final IOException ex)
        {
            buffer.clear();
            try
            {
                channel.truncate(goodEnd);
                channel.position(goodEnd);
            }
            finally
            {
                segments.getLast().bytes = goodEnd - VersionLogLayout.FILE_HEADER_LENGTH;
            }
            throw ex;
        }
    }

    private void writeFully(final ByteBuffer from) throws IOException
    {
        while (from.hasRemaining())
        {
            channel.write(from);
        }
    }

    private void closeQuietly()
    {
        try
        {
            for (final FileChannel rolled : unforced)
            {
                rolled.close();
            }
            if (channel != null)
            {
                channel.close();
            }
        }
        catch (final IOException ignored)
        {
            // closing after a failure: the failure is what the caller hears
        }
    }
}
