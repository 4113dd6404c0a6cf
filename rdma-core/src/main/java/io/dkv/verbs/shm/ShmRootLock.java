package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Held while a device directory is judged and removed or replaced: by the sweep, by a start that takes a fixed id back
 * from a dead device, and by a close removing its own directory. Judging and removing are two steps; without the lock
 * a sweep that judged a dead directory could remove the one a new device with the same fixed id had just made in its
 * place.
 * <p>
 * A file lock serialises processes; it does not serialise the threads of one process (a second lock of the same file
 * in one JVM is refused), so one in-process lock is taken first.
 */
final class ShmRootLock implements AutoCloseable
{
    static final String LOCK_FILE = ".lock";
    private static final ReentrantLock IN_PROCESS = new ReentrantLock();

    private final FileChannel channel;
    private final FileLock lock;

    private ShmRootLock(final FileChannel channel, final FileLock lock)
    {
        this.channel = channel;
        this.lock = lock;
    }

    static ShmRootLock acquire(final Path root)
    {
        IN_PROCESS.lock();
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(root.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            return new ShmRootLock(channel, channel.lock());
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            IN_PROCESS.unlock();
            throw new VerbsException("cannot lock the shm root " + root + ": " + ex, ex);
        }
    }

    public void close()
    {
        try
        {
            lock.release();
        }
        catch (final IOException ignore)
        {
            // closing the channel releases it as well
        }
        finally
        {
            closeQuietly(channel);
            IN_PROCESS.unlock();
        }
    }

    private static void closeQuietly(final FileChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // the lock goes with the channel
            }
        }
    }
}
