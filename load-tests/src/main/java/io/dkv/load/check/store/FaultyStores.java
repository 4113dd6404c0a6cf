package io.dkv.load.check.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Deliberately broken layers over a store, to show that the harness catches what they break:
 * {@code dkv check --inject} puts one between the clients and the real store, and the tests put
 * them over a store in memory.
 */
public final class FaultyStores
{
    public static final String STALE_READS = "stale-reads";
    public static final String LOST_UPDATES = "lost-updates";
    /**
     * Not a layer over the store but a MetaServer that judges leases as it did before it told its own stall from
     * silent nodes: stopped past a lease, it declares every memory node down at once on resume. The check cluster
     * starts its MetaServer so; the clients' store is the real one.
     */
    public static final String META_WITHOUT_STALL_CHECK = "meta-without-stall-check";
    /** Transactions whose writes are made one by one, each visible at once: a commit visible before it is whole. */
    public static final String NON_ATOMIC_TXNS = "non-atomic-txns";
    /** Transactions whose reads are not checked again at commit: their writes made whole, on stale reads. */
    public static final String UNVALIDATED_TXNS = "unvalidated-txns";
    /** Blocking pops that now and then hand out again the element the last one took: a delivery made twice. */
    public static final String DUPLICATE_POPS = "duplicate-pops";
    /** Transfer scripts run as a debit script and then a credit script: a script seen in part. */
    public static final String SPLIT_SCRIPTS = "split-scripts";
    public static final String NAMES = STALE_READS + ", " + LOST_UPDATES + ", " + NON_ATOMIC_TXNS + ", " +
        UNVALIDATED_TXNS + ", " + DUPLICATE_POPS + ", " + SPLIT_SCRIPTS + ", " + META_WITHOUT_STALL_CHECK;
    private static final String NONE = "none";
    private static final List<String> KNOWN = List.of(NONE, STALE_READS, LOST_UPDATES, NON_ATOMIC_TXNS,
        UNVALIDATED_TXNS, DUPLICATE_POPS, SPLIT_SCRIPTS, META_WITHOUT_STALL_CHECK);
    /** How long a faulty transaction layer waits in its window, where another transaction can come between. */
    private static final long TXN_WINDOW_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /** Of every this many reads of a key, one reaches the store under {@link #STALE_READS}. */
    static final int STALE_READS_PER_REFRESH = 4;
    /** Of every this many blocking pops that take an element, one's element is handed out again by the next pop. */
    static final int POPS_PER_DUPLICATE = 10;

    private FaultyStores()
    {
    }

    /**
     * @throws IllegalArgumentException when no fault has that name.
     */
    public static void requireKnown(final String fault)
    {
        if (!KNOWN.contains(fault))
        {
            throw new IllegalArgumentException("unknown fault '" + fault + "': expected none, " + NAMES);
        }
    }

    /**
     * @return the store with the named fault, or the store itself for "none" and for faults that are not a layer.
     */
    public static CheckedStore inject(final String fault, final CheckedStore store)
    {
        requireKnown(fault);
        return switch (fault)
        {
            case STALE_READS -> new StaleReads(store, STALE_READS_PER_REFRESH);
            case LOST_UPDATES -> new LostUpdates(store, TimeUnit.MILLISECONDS.toNanos(2));
            case NON_ATOMIC_TXNS -> new NonAtomicTxns(store, TXN_WINDOW_NANOS);
            case UNVALIDATED_TXNS -> new UnvalidatedTxns(store, TXN_WINDOW_NANOS);
            case DUPLICATE_POPS -> new DuplicatePops(store, POPS_PER_DUPLICATE);
            case SPLIT_SCRIPTS -> new SplitScripts(store, TXN_WINDOW_NANOS);
            default -> store;
        };
    }

    /**
     * @return whether blocking pops reach the store through the fault: none, and the faults that are no layer, pass
     * them as they are; {@link #DUPLICATE_POPS} breaks them; the other layers serve none.
     */
    public static boolean passesBlockingPops(final String fault)
    {
        requireKnown(fault);
        return NONE.equals(fault) || DUPLICATE_POPS.equals(fault) || META_WITHOUT_STALL_CHECK.equals(fault);
    }

    /**
     * @return whether scripts reach the store through the fault: none, and the faults that are no layer, pass them as
     * they are; {@link #SPLIT_SCRIPTS} breaks them; the other layers run none.
     */
    public static boolean passesScripts(final String fault)
    {
        requireKnown(fault);
        return NONE.equals(fault) || SPLIT_SCRIPTS.equals(fault) || META_WITHOUT_STALL_CHECK.equals(fault);
    }

    /**
     * Reads served from a copy of what was last read, refreshed only every so many reads of the key,
     * as a cache without invalidation would; writes go through. Counting reads rather than time
     * keeps the fault as frequent on a busy machine, where operations slow down, as on an idle one.
     */
    public static final class StaleReads implements CheckedStore
    {
        private static final byte[] ABSENT = new byte[0];

        private final CheckedStore store;
        private final int readsPerRefresh;
        private final ConcurrentHashMap<String, byte[]> cached = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<String, AtomicInteger> readsSince = new ConcurrentHashMap<>();

        /** @param readsPerRefresh reads of a key of which one goes to the store, the rest to its copy. */
        public StaleReads(final CheckedStore store, final int readsPerRefresh)
        {
            this.store = store;
            this.readsPerRefresh = readsPerRefresh;
        }

        public byte[] get(final String key)
        {
            final int read = readsSince.computeIfAbsent(key, ignored -> new AtomicInteger()).getAndIncrement();
            final byte[] copy = cached.get(key);
            if (copy == null || read % readsPerRefresh == 0)
            {
                final byte[] value = store.get(key);
                cached.put(key, value == null ? ABSENT : value);
                return value;
            }
            return copy == ABSENT ? null : copy;
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            return store.compareAndSet(key, expected, value);
        }

        public <T> T transact(final Function<TxnView, T> body)
        {
            return store.transact(body);
        }

        public List<List<byte[]>> listSteps(final List<ListStep> steps)
        {
            return store.listSteps(steps);
        }
    }

    /**
     * Compare-and-set as two steps without a lock: compare what a read returned, wait, then write,
     * so two writers that both find the expected value both succeed and one update is lost.
     */
    public static final class LostUpdates implements CheckedStore
    {
        private final CheckedStore store;
        private final long windowNanos;

        public LostUpdates(final CheckedStore store, final long windowNanos)
        {
            this.store = store;
            this.windowNanos = windowNanos;
        }

        public byte[] get(final String key)
        {
            return store.get(key);
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            final byte[] current = store.get(key);
            if (!CheckedStore.holds(current, expected))
            {
                return false;
            }
            LockSupport.parkNanos(windowNanos);
            store.put(key, value);
            return true;
        }

        public <T> T transact(final Function<TxnView, T> body)
        {
            return store.transact(body);
        }

        public List<List<byte[]>> listSteps(final List<ListStep> steps)
        {
            return store.listSteps(steps);
        }
    }

    /**
     * A transaction layer that is none: each read goes to the store, each write is made at once (with a pause after
     * it, where others read the transaction half made).
     */
    public static final class NonAtomicTxns extends Passing
    {
        private final long windowNanos;

        public NonAtomicTxns(final CheckedStore store, final long windowNanos)
        {
            super(store);
            this.windowNanos = windowNanos;
        }

        public <T> T transact(final Function<TxnView, T> body)
        {
            return body.apply(new TxnView()
            {
                public byte[] get(final String key)
                {
                    return store.get(key);
                }

                public void put(final String key, final byte[] value)
                {
                    store.put(key, value);
                    LockSupport.parkNanos(windowNanos);
                }
            });
        }

        /** Each step alone, a pause after each append. */
        public List<List<byte[]>> listSteps(final List<ListStep> steps)
        {
            final List<List<byte[]>> results = new ArrayList<>(steps.size());
            for (final ListStep step : steps)
            {
                results.add(store.listSteps(List.of(step)).getFirst());
                if (step.element() != null)
                {
                    LockSupport.parkNanos(windowNanos);
                }
            }
            return results;
        }
    }

    /**
     * Reads outside the transaction, checked by nobody: the function runs on plain reads, then, after a pause, its
     * writes are made in one real transaction that reads nothing, so they land whole on reads that may be stale.
     */
    public static final class UnvalidatedTxns extends Passing
    {
        private final long windowNanos;

        public UnvalidatedTxns(final CheckedStore store, final long windowNanos)
        {
            super(store);
            this.windowNanos = windowNanos;
        }

        public <T> T transact(final Function<TxnView, T> body)
        {
            final Map<String, byte[]> writes = new LinkedHashMap<>();
            final T result = body.apply(new TxnView()
            {
                public byte[] get(final String key)
                {
                    return writes.containsKey(key) ? writes.get(key) : store.get(key);
                }

                public void put(final String key, final byte[] value)
                {
                    writes.put(key, value);
                }
            });
            LockSupport.parkNanos(windowNanos);
            if (!writes.isEmpty())
            {
                store.transact(view ->
                {
                    writes.forEach(view::put);
                    return null;
                });
            }
            return result;
        }

        /** The reads alone, then, after a pause, the appends in one transaction that reads nothing. */
        public List<List<byte[]>> listSteps(final List<ListStep> steps)
        {
            final List<List<byte[]>> results = new ArrayList<>(steps.size());
            final List<ListStep> appends = new ArrayList<>();
            for (final ListStep step : steps)
            {
                results.add(step.element() == null ? store.listSteps(List.of(step)).getFirst() : null);
                if (step.element() != null)
                {
                    appends.add(step);
                }
            }
            LockSupport.parkNanos(windowNanos);
            if (!appends.isEmpty())
            {
                store.listSteps(appends);
            }
            return results;
        }
    }

    /**
     * Blocking pops that deliver an element twice, as a pop whose taking was undone after it answered would: of every
     * so many pops that take an element, one's element is kept, and the next pop of that key hands it out again
     * without reaching the store. Counting pops rather than time keeps the fault as frequent under any load.
     */
    public static final class DuplicatePops extends Passing implements QueueStore
    {
        private final QueueStore queue;
        private final int popsPerDuplicate;
        private final AtomicInteger taking = new AtomicInteger();
        private final ConcurrentHashMap<String, byte[]> kept = new ConcurrentHashMap<>();

        /** @param popsPerDuplicate pops that take an element of which one's element is handed out again. */
        public DuplicatePops(final CheckedStore store, final int popsPerDuplicate)
        {
            super(store);
            if (popsPerDuplicate < 1)
            {
                throw new IllegalArgumentException("duplicate pops: one in " + popsPerDuplicate + " pops: at least 1");
            }
            this.queue = QueueStore.of(store);
            this.popsPerDuplicate = popsPerDuplicate;
        }

        public byte[] blockingPop(final String key, final long timeoutMs)
        {
            final byte[] again = kept.remove(key);
            if (again != null)
            {
                return again;
            }
            final byte[] element = queue.blockingPop(key, timeoutMs);
            if (element != null && taking.incrementAndGet() % popsPerDuplicate == 0)
            {
                kept.put(key, element);
            }
            return element;
        }

        public <T> T transact(final Function<TxnView, T> body)
        {
            return store.transact(body);
        }
    }

    /** A layer whose single-key operations go to the store as they are. */
    abstract static class Passing implements CheckedStore
    {
        final CheckedStore store;

        Passing(final CheckedStore store)
        {
            this.store = store;
        }

        public byte[] get(final String key)
        {
            return store.get(key);
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            return store.compareAndSet(key, expected, value);
        }

        public List<List<byte[]>> listSteps(final List<ListStep> steps)
        {
            return store.listSteps(steps);
        }
    }
}
