package io.dkv.client.txn;

import io.dkv.client.KvClient;
import io.dkv.client.KvErrors;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.format.JournalLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * One transaction: reads and writes of any keys, on any memory nodes, that commit all or nothing and strictly
 * serializably (client/README.md, "Transactions"). Reads go to the store at once and are remembered with the version
 * read; writes are kept here until {@link #commit}, and a read of a key the transaction wrote answers that write.
 * Made by {@code KvClient.begin()} or handed to a {@link TransactionBody} by {@code KvClient.transact}; its
 * methods may be called from any thread (its asynchronous reads complete on completion threads).
 */
public final class Transaction
{
    private final TxnServices services;
    private final KvClient client;
    private final CommitKeys keys;
    private final IntentResolver resolver;
    private final int maxResolves;
    /** Where a commit that completions cannot carry alone runs: the client's own threads. */
    private final Map<ByteBuffer, TxnEntry> entries = new LinkedHashMap<>();
    /**
     * Where reads are answered from, never from the store (null: from the store): a key not in it throws
     * {@link ReadsNeeded}. Its versions were read with any intent resolved; the commit checks them as any read.
     */
    private final Map<ByteBuffer, Versioned> known;
    private boolean ended;
    /** Generations to remove once this transaction commits ({@link #dropAfterCommit}). */
    private List<Dropped> drops;

    /** @param numbers the segments to remove, or null: 0 to {@code count - 1}. */
    private record Dropped(long generation, int count, int[] numbers)
    {
    }

    /** For {@code KvClient}: applications get one from {@code KvClient.begin()} or {@code transact}. */
    public Transaction(final TxnServices services)
    {
        this(services, null);
    }

    private Transaction(final TxnServices services, final Map<ByteBuffer, Versioned> known)
    {
        this.known = known;
        this.services = services;
        this.client = services.client();
        this.keys = services.keys();
        this.resolver = services.resolver();
        this.maxResolves = services.maxResolves();
    }

    /**
     * A transaction whose reads never wait: each is answered from {@code known} (by the key's bytes; a null version
     * where the key had no value), and one of a key not in it throws {@link ReadsNeeded} naming it (a
     * {@link #readAll} or {@link #peekAll}: every such key it names). For {@code KvClient.transactReplayed}, which
     * reads those keys and runs the function again.
     */
    public static Transaction replaying(final TxnServices services, final Map<ByteBuffer, Versioned> known)
    {
        return new Transaction(services, known);
    }

    /** @return the version of the key as known; throws {@link ReadsNeeded} where it is not. */
    private Versioned knownVersion(final byte[] key)
    {
        final ByteBuffer wrapped = ByteBuffer.wrap(key);
        final Versioned version = known.get(wrapped);
        if (version == null && !known.containsKey(wrapped))
        {
            throw new ReadsNeeded(List.of(key));
        }
        return version;
    }

    /** Where reads are answered from what is known: throws {@link ReadsNeeded} naming every key of these not known. */
    private void requireKnown(final List<byte[]> keys)
    {
        List<byte[]> missing = null;
        for (final byte[] key : keys)
        {
            if (!known.containsKey(ByteBuffer.wrap(key)))
            {
                missing = missing == null ? new ArrayList<>() : missing;
                missing.add(key);
            }
        }
        if (missing != null)
        {
            throw new ReadsNeeded(missing);
        }
    }

    /**
     * As {@link #get}, carried by completions ({@code KvClient.getVersionedAsync}): the key is read without a thread
     * waiting for it. Reads of several keys may be in flight at once. The future completes on the thread that
     * delivered the completion: continue with work that blocks in the future's {@code ...Async} stages.
     */
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        final TxnEntry entry;
        synchronized (this)
        {
            requireOpen();
            entry = entry(key);
            if (entry.read || entry.written)
            {
                return CompletableFuture.completedFuture(view(entry));
            }
        }
        return client.getVersionedAsync(entry.key).thenApply(version ->
        {
            synchronized (this)
            {
                if (!entry.read && !entry.written)
                {
                    entry.version = version;
                    entry.read = true;
                }
                return view(entry);
            }
        });
    }

    /**
     * As {@link #commit}, without a thread waiting for it: a transaction that writes one key (and reads no other) or
     * none, or that commits in parallel over keys it read, is carried by completions, its requests posted by one of
     * the client's threads; any other over several keys commits on one of the client's threads.
     *
     * @return completes when committed; exceptionally with {@link TransactionConflictException} on a conflict.
     */
    public CompletableFuture<Void> commitAsync()
    {
        return commitAsync(services.executor(), null);
    }

    /**
     * As {@link #commitAsync()}, its requests posted by {@code poster}: a thread that may wait a moment on the client
     * (a write may first take a chunk of a memory node's heap, an RPC), never one that delivers the client's
     * completions, which would have to deliver that RPC's answer to itself. A compute node passes the connection's
     * event loop, so that no thread of the client's is taken.
     */
    public CompletableFuture<Void> commitAsync(final Executor poster)
    {
        return commitAsync(poster, poster);
    }

    /** @param poster the caller's poster, or null: none, the commit started on {@code on}, a client thread. */
    private synchronized CompletableFuture<Void> commitAsync(final Executor on, final Executor poster)
    {
        requireOpen();
        ended = true;
        final TransactionCommit commit = new TransactionCommit(services, entries.values(), false);
        final CompletableFuture<Void> committed =
            CompletableFuture.supplyAsync(() -> commit.runAsync(poster), on).thenCompose(started -> started);
        // the removals wait on the store: on the client's own threads, never a completion's
        return drops == null ? committed : committed.thenRunAsync(this::removeDropped, services.executor());
    }

    /** @return the key's value as this transaction sees it (its own write, else the store's), or null: none. */
    public synchronized byte[] get(final byte[] key)
    {
        return view(readEntry(key));
    }

    /**
     * Read several keys, as {@link #get} each.
     *
     * @return the values in the keys' order, null where a key has none.
     */
    public synchronized List<byte[]> getAll(final List<byte[]> keys)
    {
        // one after the other on this thread: a read's two round trips cost less than handing completions across
        // threads (use getAsync to have several in flight)
        final List<byte[]> values = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            values.add(get(key));
        }
        return values;
    }

    private byte[] view(final TxnEntry entry)
    {
        final LogicalValue value = logical(entry);
        if (value == null)
        {
            return null;
        }
        WrongKindException.require(entry.key, value.expiryWord(), ValueKind.STRING);
        return value.value();
    }

    /** @return the entry's value as this transaction sees it, of any kind, or null: none. */
    private LogicalValue logical(final TxnEntry entry)
    {
        if (entry.written)
        {
            return live(entry.newValue, entry.newExpireAt) ?
                new LogicalValue(entry.newValue.clone(), entry.newExpireAt) : null;
        }
        return entry.version == null ? null :
            new LogicalValue(entry.version.value().clone(), entry.version.expiryWord());
    }

    /**
     * Read the key as {@link #get} does, whatever kind of value it holds (a string or a collection's header or
     * segment: {@link ValueKind}), for the client's collections.
     *
     * @return the value and its expiry word, or null when the key has none.
     */
    public synchronized LogicalValue read(final byte[] key)
    {
        return logical(readEntry(key));
    }

    /**
     * Read each of {@code keys} as {@link #read} does, ahead of what the transaction does with them (an MSET's puts,
     * each of which reads its key's kind first): where requests wait on a wire or a NIC (tcp, verbs) the keys this
     * transaction has not read or written are read all in flight at once ({@link CommitKeys#readAsync}: one round for
     * many, where reads one by one take one each); on shm, where a request is the posting thread's own copy, one after
     * the other. Not from a thread that delivers the client's completions.
     */
    public void readAll(final List<byte[]> keys)
    {
        if (known != null)
        {
            requireKnown(keys);
        }
        if (known != null || keys.size() < 2 || !client.requestsWaitOnWire())
        {
            keys.forEach(this::read);
            return;
        }
        awaited(readAllAsync(keys));
    }

    /**
     * As {@link #readAll}, without a thread waiting: the keys this transaction has not read or written are read all in
     * flight at once ({@link CommitKeys#readAsync}), carried by completions, on any provider. Once the future completes
     * {@link #read} and {@link #get} of these keys answer without a request.
     *
     * @return completes once every key was read, on the thread that delivered the last read's completion.
     */
    public CompletableFuture<Void> readAllAsync(final List<byte[]> keys)
    {
        final List<CompletableFuture<Versioned>> reads = new ArrayList<>(keys.size());
        synchronized (this)
        {
            requireOpen();
            final java.util.Set<TxnEntry> started =
                java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (final byte[] key : keys)
            {
                final TxnEntry entry = entry(key);
                if (!entry.read && !entry.written && started.add(entry))
                {
                    reads.add(this.keys.readAsync(entry.key).thenApply(version ->
                    {
                        synchronized (this)
                        {
                            if (!entry.read && !entry.written)
                            {
                                entry.version = version;
                                entry.read = true;
                            }
                        }
                        return version;
                    }));
                }
            }
        }
        return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * @return the key's value and version as this transaction read them from the store (its own writes not counted),
     * reading the key if it has not; null when it had no value. Two reads of a key name the same write when their
     * {@link Versioned#writeId} agree: an optimistic check (redis's WATCH) compares them.
     */
    public synchronized Versioned getVersioned(final byte[] key)
    {
        final TxnEntry entry = entry(key);
        requireOpen();
        if (!entry.read)
        {
            // replaying: answered from what is known, as every read is (never a read that waits)
            entry.version = known != null ? knownVersion(key) : readResolved(keys, resolver, key, maxResolves);
            entry.read = true;
        }
        return entry.version;
    }

    /**
     * @return the key's expiry as this transaction sees it: epoch milliseconds, {@link KvClient#NO_EXPIRY}, or -2 when
     * the key has no value.
     */
    public synchronized long expireAtMillis(final byte[] key)
    {
        final TxnEntry entry = readEntry(key);
        if (entry.written)
        {
            return live(entry.newValue, entry.newExpireAt) ? ValueKind.expiryOf(entry.newExpireAt) : -2;
        }
        return entry.version == null ? -2 : entry.version.expireAtMillis();
    }

    /**
     * Read the key as {@link #read} does, without the commit checking that nothing changed it since: for keys whose
     * every change also changes a key this transaction does read, as a collection's segment and its header
     * (client/README.md, "Hashes and sets"), so that a commit checks the header alone. A key this transaction read or
     * wrote answers as it does to {@link #read}.
     *
     * @return the value and its expiry word, or null when the key has none.
     */
    public LogicalValue peek(final byte[] key)
    {
        synchronized (this)
        {
            requireOpen();
            final TxnEntry entry = entries.get(ByteBuffer.wrap(key));
            if (seen(entry))
            {
                return seenValue(entry);
            }
        }
        return remember(key, known != null ? knownVersion(key) : readResolved(keys, resolver, key, maxResolves));
    }

    /** @return true when this transaction read, wrote or peeked the entry's key: a peek answers from it. */
    private static boolean seen(final TxnEntry entry)
    {
        return entry != null && (entry.read || entry.written || entry.peekedKnown);
    }

    private LogicalValue seenValue(final TxnEntry entry)
    {
        return entry.read || entry.written ? logical(entry) : peeked(entry.peeked);
    }

    /**
     * As {@link #peek} for each of {@code keys}, the reads of the keys this transaction has not seen all in flight at
     * once ({@link CommitKeys#readAsync}): one round trip for many, where peeks one by one take one each.
     *
     * @return the values in the keys' order, null where a key has none.
     */
    public LogicalValue[] peekAll(final List<byte[]> keys)
    {
        if (known != null)
        {
            requireKnown(keys);
            final LogicalValue[] values = new LogicalValue[keys.size()];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = peek(keys.get(i));
            }
            return values;
        }
        final LogicalValue[] values = new LogicalValue[keys.size()];
        final List<CompletableFuture<Versioned>> reads = new ArrayList<>(keys.size());
        synchronized (this)
        {
            requireOpen();
            for (int i = 0; i < values.length; i++)
            {
                final TxnEntry entry = entries.get(ByteBuffer.wrap(keys.get(i)));
                if (seen(entry))
                {
                    values[i] = seenValue(entry);
                    reads.add(null);
                }
                else
                {
                    reads.add(this.keys.readAsync(keys.get(i)));
                }
            }
        }
        for (int i = 0; i < values.length; i++)
        {
            final CompletableFuture<Versioned> read = reads.get(i);
            if (read != null)
            {
                values[i] = remember(keys.get(i), awaited(read));
            }
        }
        return values;
    }

    /**
     * Keep what a peek read, for a write of the key, which is then swapped in from it (the commit checks it no other
     * way). @return the key as this transaction sees it now.
     */
    private synchronized LogicalValue remember(final byte[] key, final Versioned version)
    {
        final TxnEntry entry = entry(key);
        if (!seen(entry))
        {
            entry.peeked = version;
            entry.peekedKnown = true;
        }
        return seenValue(entry);
    }

    private <T> T awaited(final CompletableFuture<T> read)
    {
        try
        {
            return this.keys.await(read);
        }
        catch (final CompletionException ex)
        {
            if (ex.getCause() instanceof RuntimeException cause)
            {
                throw cause;
            }
            throw ex;
        }
    }

    private static LogicalValue peeked(final Versioned version)
    {
        return version == null ? null : new LogicalValue(version.value().clone(), version.expiryWord());
    }

    /** Set the key's value, with no expiry, when the transaction commits. */
    public void put(final byte[] key, final byte[] value)
    {
        put(key, value, KvClient.NO_EXPIRY);
    }

    /** Set the key's value, expiring at {@code expireAtMillis} (or {@link KvClient#NO_EXPIRY}), when it commits. */
    public void put(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        if (key != null && ReservedKeys.isReserved(key))
        {
            throw new IllegalArgumentException(ReservedKeys.refusal(KvErrors.describe(key)));
        }
        write(key, value, ValueKind.word(ValueKind.STRING, expireAtMillis));
    }

    /**
     * Set the key's value and its kind ({@link ValueKind}: a collection's header or segment, for the client's
     * collections) when it commits.
     *
     * @param expiryWord the kind and the expiry time, as {@link ValueKind#word} makes them.
     */
    public synchronized void write(final byte[] key, final byte[] value, final long expiryWord)
    {
        requireOpen();
        if (value == null || value.length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("a value is 0 to " + KvBlockLayout.MAX_VALUE_LENGTH + " bytes; this " +
                "one is " + (value == null ? "null" : value.length + " bytes"));
        }
        if (expiryWord < 0)
        {
            throw new IllegalArgumentException("an expiry word is a kind and epoch milliseconds; this one is " +
                expiryWord);
        }
        final TxnEntry entry = blindEntry(key);
        entry.written = true;
        entry.newValue = value.clone();
        entry.newExpireAt = expiryWord;
    }

    /**
     * Remove the key when the transaction commits.
     *
     * @return true when the key has a value as this transaction sees it (so it reads the key).
     */
    public synchronized boolean delete(final byte[] key)
    {
        final boolean had = logical(readEntry(key)) != null;
        final TxnEntry entry = entry(key);
        entry.written = true;
        entry.newValue = null;
        entry.newExpireAt = KvClient.NO_EXPIRY;
        return had;
    }

    /**
     * Remove the key when the transaction commits, without reading it (as {@link #delete} does): for a collection's
     * segments, whose header the transaction read.
     */
    public synchronized void remove(final byte[] key)
    {
        requireOpen();
        final TxnEntry entry = blindEntry(key);
        entry.written = true;
        entry.newValue = null;
        entry.newExpireAt = KvClient.NO_EXPIRY;
    }

    /**
     * Drop a generation's segments numbered 0 to {@code count - 1} (a large collection's, a string's pieces), which
     * nothing will read once this transaction commits (it removes or replaces what named them): it writes the
     * generation's journal, claimed, and once committed, removes the segments one transaction each and then the
     * journal ({@link DroppedGenerations}). Aborted, nothing is removed. A process that stops between leaves the
     * journal, which a sweep of journals finishes.
     */
    public void dropAfterCommit(final long generation, final int count)
    {
        dropAfterCommit(generation, count, null);
    }

    /**
     * As {@link #dropAfterCommit(long, int)}, removing the segments {@code numbers} names (each below {@code count}):
     * a tree's nodes, whose numbers a generation never uses twice. A sweep that finishes it looks for every number
     * below {@code count}.
     */
    public synchronized void dropAfterCommit(final long generation, final int count, final int[] numbers)
    {
        requireOpen();
        writeFreeing(ReservedKeys.journalKey(generation), JournalLayout.encode(client.epochClock().time(), count,
            JournalLayout.CLAIMED), ValueKind.word(ValueKind.SEGMENT, KvClient.NO_EXPIRY));
        if (drops == null)
        {
            drops = new ArrayList<>();
        }
        drops.add(new Dropped(generation, count, numbers));
    }

    /**
     * As {@link #write}, for a write that lets memory be freed (a journal claimed for a removal): a transaction of
     * deletes and such writes may take a full node's reserve for deletes.
     */
    public synchronized void writeFreeing(final byte[] key, final byte[] value, final long expiryWord)
    {
        write(key, value, expiryWord);
        entry(key).freeing = true;
    }

    /** @return true when this transaction writes or removes the key. */
    public synchronized boolean writes(final byte[] key)
    {
        final TxnEntry entry = entries.get(ByteBuffer.wrap(key));
        return entry != null && entry.written;
    }

    /** Remove what {@link #dropAfterCommit} named; what fails is left to the sweep of journals. */
    private void removeDropped()
    {
        try
        {
            for (final Dropped dropped : drops)
            {
                if (dropped.numbers() == null)
                {
                    DroppedGenerations.remove(client, dropped.generation(), dropped.count());
                }
                else
                {
                    DroppedGenerations.remove(client, dropped.generation(), dropped.numbers());
                }
            }
        }
        catch (final RuntimeException ex)
        {
            // committed all the same: the journals left name what a sweep removes
        }
    }

    /** @return true while the transaction has written nothing: it commits by checking its reads again. */
    public synchronized boolean readOnly()
    {
        return entries.values().stream().noneMatch(entry -> entry.written);
    }

    /**
     * Make the transaction's writes, all at once, if nothing it read or writes changed since it read it.
     *
     * @throws TransactionConflictException when another transaction or write came between: nothing was written.
     * @throws io.dkv.client.KvException    when a memory node failed it; its message says whether it may have
     *                                      committed.
     */
    public synchronized void commit()
    {
        requireOpen();
        ended = true;
        new TransactionCommit(services, entries.values(), true).run();
        if (drops != null)
        {
            removeDropped();
        }
    }

    /** Leave the transaction: nothing it would have written is written. */
    public synchronized void abort()
    {
        ended = true;
    }

    private TxnEntry readEntry(final byte[] key)
    {
        requireOpen();
        final TxnEntry entry = entry(key);
        if (!entry.read && !entry.written)
        {
            entry.version = known != null ? knownVersion(key) : readResolved(keys, resolver, key, maxResolves);
            entry.read = true;
        }
        return entry;
    }

    /** @return the key's plain version, any intent on it resolved first; null when it has no value. */
    static Versioned readResolved(final RawKeys keys, final IntentResolver resolver, final byte[] key,
        final int maxResolves)
    {
        for (int attempt = 0; attempt < maxResolves; attempt++)
        {
            final Versioned read = keys.read(key);
            if (read == null || !KvBlockLayout.isIntent(read.expireAtMillis()))
            {
                return read;
            }
            resolver.resolve(key);
        }
        throw new TransactionConflictException("key " + KvErrors.describe(key) + " held another transaction's " +
            "intent " + maxResolves + " times in a row as it was read");
    }

    /**
     * @return the key's entry, for a write that need not read it; where reads are answered from what is known and the
     * key is, its version is taken from there as a peek's, so that the commit swaps it in from that version without a
     * read of its own (one not known is read by {@link #peekWritesAsync}: a new collection's segment keys are new in
     * each run).
     */
    private TxnEntry blindEntry(final byte[] key)
    {
        final TxnEntry entry = entry(key);
        if (known != null && !seen(entry) && known.containsKey(ByteBuffer.wrap(key)))
        {
            entry.peeked = known.get(ByteBuffer.wrap(key));
            entry.peekedKnown = true;
        }
        return entry;
    }

    /**
     * Read the version of each key this transaction writes without having read or peeked at it, all at once, carried
     * by completions, as a peek: its commit then swaps each in from that version without a read of its own, and may
     * be carried by completions whole ({@link #commitAsync(Executor)}).
     *
     * @return completes once every such key was read.
     */
    public CompletableFuture<Void> peekWritesAsync()
    {
        final List<CompletableFuture<Void>> reads = new ArrayList<>();
        synchronized (this)
        {
            requireOpen();
            for (final TxnEntry entry : entries.values())
            {
                if (entry.written && !seenBeforeWritten(entry))
                {
                    reads.add(this.keys.readAsync(entry.key).thenAccept(version -> peeked(entry, version)));
                }
            }
        }
        return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
    }

    private synchronized void peeked(final TxnEntry entry, final Versioned version)
    {
        if (!seenBeforeWritten(entry))
        {
            entry.peeked = version;
            entry.peekedKnown = true;
        }
    }

    /** @return true when the written entry's version is known: it was read, or peeked at. */
    private static boolean seenBeforeWritten(final TxnEntry entry)
    {
        return entry.read || entry.peekedKnown;
    }

    private TxnEntry entry(final byte[] key)
    {
        if (key == null || key.length == 0 || key.length > KvBlockLayout.MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a key is 1 to " + KvBlockLayout.MAX_KEY_LENGTH + " bytes; this one " +
                "is " + (key == null ? "null" : key.length + " bytes"));
        }
        return entries.computeIfAbsent(ByteBuffer.wrap(key.clone()), wrapped -> new TxnEntry(wrapped.array()));
    }

    private boolean live(final byte[] value, final long expireAt)
    {
        return value != null && !KvBlockLayout.isExpired(expireAt, keys.epochMillis());
    }

    private void requireOpen()
    {
        if (ended)
        {
            throw new IllegalStateException("the transaction has ended (committed or aborted)");
        }
    }
}
