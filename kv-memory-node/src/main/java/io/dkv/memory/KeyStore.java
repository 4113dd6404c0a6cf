package io.dkv.memory;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The memory node's keys on disk (RocksDB): what a restarted node loads back into its index and
 * heap. Written by the chunk server's thread only.
 *
 * <pre>
 * key                 value
 * (empty)             format    int    {@link #FORMAT}; no client key is empty, so it names no key
 * a client's key      expireAt  long   epoch milliseconds, 0: never (as the block's, {@code KvBlockLayout})
 *                     value     the rest
 * </pre>
 *
 * A store of another format (format 1 kept values alone, with no format key) is refused when
 * opened rather than read wrongly.
 */
final class KeyStore implements AutoCloseable
{
    static
    {
        RocksDB.loadLibrary();
    }

    /** 2: values carry their expiry. */
    static final int FORMAT = 2;
    private static final byte[] FORMAT_KEY = new byte[0];
    private static final int EXPIRE_AT_LENGTH = Long.BYTES;

    /** Receives a stored key, its expiry time and its value. */
    @FunctionalInterface
    interface StoredKeyVisitor
    {
        void visit(byte[] key, long expireAt, byte[] value);
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
     * @throws IllegalStateException naming the directory when it cannot be opened (another node has it open, no
     * space...).
     */
    static KeyStore open(final Path path)
    {
        final Options options = new Options().setCreateIfMissing(true);
        try
        {
            Files.createDirectories(path);
            final RocksDB db = RocksDB.open(options, path.toString());
            try
            {
                checkFormat(path, db);
            }
            catch (final RuntimeException | RocksDBException ex)
            {
                db.close();
                throw ex;
            }
            return new KeyStore(path, options, db);
        }
        catch (final IllegalStateException ex)
        {
            options.close();
            throw ex;
        }
        catch (final RocksDBException | java.io.IOException ex)
        {
            options.close();
            throw new IllegalStateException("cannot open the memory node's key store in " + path + ": " +
                ex.getMessage(), ex);
        }
    }

    private static void checkFormat(final Path path, final RocksDB db) throws RocksDBException
    {
        final byte[] format = db.get(FORMAT_KEY);
        if (format == null)
        {
            try (RocksIterator iterator = db.newIterator())
            {
                iterator.seekToFirst();
                if (iterator.isValid())
                {
                    throw new IllegalStateException("the key store in " + path +
                        " holds keys of format 1 (values with no expiry), and this node reads format " + FORMAT +
                        ": move it away, or start a node of its version");
                }
            }
            db.put(FORMAT_KEY, ByteBuffer.allocate(Integer.BYTES).putInt(FORMAT).array());
        }
        else if (format.length != Integer.BYTES || ByteBuffer.wrap(format).getInt() != FORMAT)
        {
            throw new IllegalStateException("the key store in " + path + " is of format " +
                (format.length == Integer.BYTES ? Integer.toString(ByteBuffer.wrap(format).getInt()) :
                    Arrays.toString(format)) +
                ", and this node reads format " + FORMAT);
        }
    }

    /** Add the key's state to {@code batch}: its value and expiry time. */
    static void put(final WriteBatch batch, final byte[] key, final long expireAt,
        final byte[] value) throws RocksDBException
    {
        batch.put(key, ByteBuffer.allocate(EXPIRE_AT_LENGTH + value.length).putLong(expireAt).put(value).array());
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

    /** Hand every stored key, with its expiry time and value, to {@code visitor}, in key order. */
    void forEach(final StoredKeyVisitor visitor)
    {
        try (RocksIterator iterator = db.newIterator())
        {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next())
            {
                final byte[] key = iterator.key();
                if (key.length == 0)
                {
                    continue;
                }
                final byte[] stored = iterator.value();
                final long expireAt = ByteBuffer.wrap(stored).getLong();
                visitor.visit(key, expireAt, Arrays.copyOfRange(stored, EXPIRE_AT_LENGTH, stored.length));
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
