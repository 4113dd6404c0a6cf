package io.dkv.memory;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;

/**
 * The memory node's keys on disk (RocksDB): what a restarted node loads back into its index and
 * heap. Written by the chunk server's thread only.
 */
final class KeyStore implements AutoCloseable
{
    static
    {
        RocksDB.loadLibrary();
    }

    private final Path path;
    private final Options options;
    private final WriteOptions syncWrites;
    private final WriteOptions bufferedWrites;
    private final RocksDB db;

    private KeyStore(final Path path, final Options options, final RocksDB db)
    {
        this.path = path;
        this.options = options;
        this.db = db;
        this.syncWrites = new WriteOptions().setSync(true);
        this.bufferedWrites = new WriteOptions();
    }

    /**
     * @throws IllegalStateException naming the directory when it cannot be opened (another node has it open, no space...).
     */
    static KeyStore open(final Path path)
    {
        final Options options = new Options().setCreateIfMissing(true);
        try
        {
            Files.createDirectories(path);
            return new KeyStore(path, options, RocksDB.open(options, path.toString()));
        }
        catch (final RocksDBException | java.io.IOException ex)
        {
            options.close();
            throw new IllegalStateException("cannot open the memory node's key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @param sync true: return once the batch is on disk (fsync), as durability sync asks.
     */
    void write(final WriteBatch batch, final boolean sync)
    {
        try
        {
            db.write(sync ? syncWrites : bufferedWrites, batch);
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot write to the key store in " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Hand every stored key and value to {@code action}, in key order. */
    void forEach(final BiConsumer<byte[], byte[]> action)
    {
        try (RocksIterator iterator = db.newIterator())
        {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next())
            {
                action.accept(iterator.key(), iterator.value());
            }
        }
    }

    Path path()
    {
        return path;
    }

    public void close()
    {
        db.close();
        syncWrites.close();
        bufferedWrites.close();
        options.close();
    }
}
