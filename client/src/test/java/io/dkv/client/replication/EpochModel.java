package io.dkv.client.replication;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Durable epochs under durability async (kv-memory-node/README.md, "Async across nodes"): what each memory node's
 * disk holds when some or all of them crash, and whether the state they come back with is one the transactions could
 * have left. Two memory nodes, key a on node 0 and key b on node 1 (one copy each: replicas of a key are told the same
 * notices, so each behaves as this one node does); two clients, client 0 running T1 then T3, client 1 running T2:
 * <ul>
 *     <li>T1 reads a and b and writes both (one transaction across both nodes);</li>
 *     <li>T2 reads a and writes b without reading it (its write depends on T1's when it read T1's a);</li>
 *     <li>T3 writes a without reading it (a blind overwrite, perhaps of T1's a).</li>
 * </ul>
 * Steps, each atomic: the epoch word moves on (up to {@link #MAX_EPOCH}); a client reads it (its cached epoch); a
 * transaction starts (its epoch the client's cached one), reads its keys (its epoch raised to each block's), commits
 * (validated, as the transaction protocol does: a read key changed since starts it over; its epoch raised to that of
 * each block it replaces; its blocks published in memory, its notices held), and is flushed (its notices written to
 * its client's rings, one ring per client and node); a client writes its flushed-through epoch (a mark) into every
 * ring; a node takes a ring's next item (a notice: the block it names written to its disk as a version of the key,
 * with its epoch and the version it replaced; a mark: the client's epoch known); a node fsyncs (its disk and its
 * durable epoch, the least of its clients' marks, kept); a node drops what the cluster's durable epoch (the least of
 * every node's) makes old.
 *
 * <p>Checked at every state, as if it crashed there: every node at once (each loads, per key, its newest version at
 * or below D, the least of the nodes' kept durable epochs), and each node alone: every copy of its keys lost while
 * the other serves (kv-memory-node/README.md, "Every copy of some keys lost while a member serves"), so the other
 * restarts from its disk, which holds what it wrote, fsynced or not, and rolls back to D, of which it is a source
 * ({@link Variant#NO_ROLLBACK} keeps its memory, {@link Variant#SOURCE_LEFT_OUT} takes the crashed node's kept epoch
 * alone for the cut). The state they come back with must be exactly that of the transactions of epoch at most D, in
 * the order they committed, and no such transaction may have read a write of one above D; and no version may be
 * missing: a run that ends with every notice and mark taken and fsynced comes back with D = {@link #MAX_EPOCH} - 1.
 */
final class EpochModel implements Model<EpochModel.State>
{
    /** What the protocol does; each form but {@link #DESIGN} breaks one of its rules. */
    enum Variant
    {
        /** The rules as the design writes them. */
        DESIGN,
        /** The node keeps one value a key, what its index holds when told (the store as built, with no epochs). */
        NO_VERSIONS,
        /** A transaction's epoch is its client's cached one, not raised to the epochs of the blocks it read. */
        READ_BELOW,
        /** A write's epoch is not raised to that of the block it replaces (a blind overwrite with a stale epoch). */
        BLIND_BELOW,
        /**
         * The node writes what its index holds for the key when it takes a notice, at that block's epoch, not the
         * block the notice names (the store as built, with epochs added): a version superseded before its notice is
         * taken is never written.
         */
        CURRENT_ONLY,
        /**
         * The node keeps one version a key and epoch, the one it was told of last: notices of two clients taken out of
         * their writes' order leave the older.
         */
        NO_PREVIOUS,
        /** A client's mark is its cached epoch less one, whatever epochs its transactions in flight carry. */
        MARK_IGNORES_IN_FLIGHT,
        /** A node counts a client in its durable epoch only once it has taken something from the client's ring. */
        UNKNOWN_CLIENT_UNCOUNTED,
        /** A node drops versions by its own durable epoch, not the cluster's. */
        DROP_BY_OWN,
        /** When one node crashes, the others keep what their memory holds instead of rolling back to D. */
        NO_ROLLBACK,
        /**
         * When one node crashes, the cut is its own kept durable epoch: the node that still serves, and restarts from
         * its disk to the cut, is left out of the cut's sources although notices of its epochs up to the cut may not
         * have reached its disk yet.
         */
        SOURCE_LEFT_OUT
    }

    static final int MAX_EPOCH = 3;
    private static final int NODES = 2;
    private static final int CLIENTS = 2;
    private static final int KEYS = 2;
    private static final int TXNS = 3;
    private static final int RING = 3;
    private static final int NONE = -1;
    private static final int UNKNOWN = -2;

    /** Per transaction: its client, the keys it reads and writes (bits: a = 1, b = 2). */
    private static final int[] CLIENT = {0, 1, 0};
    private static final int[] READS = {3, 1, 0};
    private static final int[] WRITES = {3, 2, 1};
    /** Per client: its transactions, in order. */
    private static final int[][] RUNS = {{0, 2}, {1}};

    private static final int NOT_STARTED = 0;
    private static final int STARTED = 1;
    private static final int READ = 2;
    private static final int COMMITTED = 3;
    private static final int DONE = 4;

    // the state's words
    private static final int EPOCH = 0;
    private static final int CACHED = EPOCH + 1;
    private static final int MARKED = CACHED + CLIENTS;
    /** Per transaction: phase, epoch, the version it read of each key, its commit's place, each key's previous. */
    private static final int TX = MARKED + CLIENTS;
    private static final int PHASE = 0;
    private static final int TX_EPOCH = 1;
    private static final int READ_VERSION = 2;
    private static final int SEQ = READ_VERSION + KEYS;
    private static final int PREVIOUS = SEQ + 1;
    private static final int TX_WORDS = PREVIOUS + KEYS;
    private static final int MEM = TX + TXNS * TX_WORDS;
    private static final int COMMITS = MEM + KEYS;
    /** Per client and node: the ring's length, then its items. */
    private static final int RINGS = COMMITS + 1;
    private static final int RING_WORDS = 1 + RING;
    private static final int KNOWN = RINGS + CLIENTS * NODES * RING_WORDS;
    private static final int KEPT = KNOWN + NODES * CLIENTS;
    /**
     * Per key and epoch: the versions the node's disk holds there (written, and written and fsynced), a bit each
     * (bit v: version v, 0 the initial one, t + 1 transaction t's); 0: none.
     */
    private static final int WRITTEN = KEPT + NODES;
    private static final int SYNCED = WRITTEN + KEYS * (MAX_EPOCH + 1);
    private static final int WORDS = SYNCED + KEYS * (MAX_EPOCH + 1);

    private static final int MARK_ITEM = 64;

    /** A state: its words compared by value. */
    static final class State
    {
        private final int[] words;

        State(final int[] words)
        {
            this.words = words;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof State s && Arrays.equals(s.words, words);
        }

        @Override
        public int hashCode()
        {
            return Arrays.hashCode(words);
        }
    }

    private final Variant variant;

    EpochModel(final Variant variant)
    {
        this.variant = variant;
    }

    public String name()
    {
        return "epochs, " + variant;
    }

    public State initial()
    {
        final int[] s = new int[WORDS];
        s[EPOCH] = 1;
        for (int c = 0; c < CLIENTS; c++)
        {
            s[CACHED + c] = 1;
            s[MARKED + c] = 0;
        }
        for (int t = 0; t < TXNS; t++)
        {
            Arrays.fill(s, TX + t * TX_WORDS + PREVIOUS, TX + (t + 1) * TX_WORDS, NONE);
        }
        for (int n = 0; n < NODES; n++)
        {
            for (int c = 0; c < CLIENTS; c++)
            {
                s[KNOWN + n * CLIENTS + c] = variant == Variant.UNKNOWN_CLIENT_UNCOUNTED ? UNKNOWN : 0;
            }
        }
        for (int k = 0; k < KEYS; k++)
        {
            // the initial version, 0, was written and fsynced at epoch 0
            s[WRITTEN + k * (MAX_EPOCH + 1)] = 1;
            s[SYNCED + k * (MAX_EPOCH + 1)] = 1;
        }
        return new State(s);
    }

    public List<Step<State>> steps(final State state)
    {
        final int[] s = state.words;
        final List<Step<State>> steps = new ArrayList<>();
        if (s[EPOCH] < MAX_EPOCH)
        {
            final int[] n = s.clone();
            n[EPOCH]++;
            steps.add(new Step<>("epoch " + n[EPOCH], new State(n)));
        }
        for (int c = 0; c < CLIENTS; c++)
        {
            clientSteps(s, c, steps);
        }
        for (int node = 0; node < NODES; node++)
        {
            nodeSteps(s, node, steps);
        }
        return steps;
    }

    private void clientSteps(final int[] s, final int c, final List<Step<State>> steps)
    {
        if (s[CACHED + c] < s[EPOCH])
        {
            final int[] n = s.clone();
            n[CACHED + c] = s[EPOCH];
            steps.add(new Step<>("client " + c + " reads epoch " + s[EPOCH], new State(n)));
        }
        final int mark = mark(s, c);
        if (mark > s[MARKED + c] && roomInRings(s, c, 1))
        {
            final int[] n = s.clone();
            n[MARKED + c] = mark;
            for (int node = 0; node < NODES; node++)
            {
                push(n, c, node, MARK_ITEM + mark);
            }
            steps.add(new Step<>("client " + c + " marks " + mark, new State(n)));
        }
        final int t = current(s, c);
        if (t == NONE)
        {
            return;
        }
        final int base = TX + t * TX_WORDS;
        switch (s[base + PHASE])
        {
            case NOT_STARTED ->
            {
                final int[] n = s.clone();
                n[base + PHASE] = STARTED;
                n[base + TX_EPOCH] = s[CACHED + c];
                steps.add(new Step<>("T" + (t + 1) + " starts at " + s[CACHED + c], new State(n)));
            }
            case STARTED ->
            {
                final int[] n = s.clone();
                int epoch = s[base + TX_EPOCH];
                for (int k = 0; k < KEYS; k++)
                {
                    if ((READS[t] & 1 << k) != 0)
                    {
                        n[base + READ_VERSION + k] = s[MEM + k];
                        if (variant != Variant.READ_BELOW)
                        {
                            epoch = Math.max(epoch, epochOf(s, s[MEM + k]));
                        }
                    }
                }
                n[base + TX_EPOCH] = epoch;
                n[base + PHASE] = READ;
                steps.add(new Step<>("T" + (t + 1) + " reads", new State(n)));
            }
            case READ -> steps.add(commit(s, t));
            case COMMITTED ->
            {
                if (roomInRings(s, c, KEYS))
                {
                    final int[] n = s.clone();
                    for (int k = 0; k < KEYS; k++)
                    {
                        if ((WRITES[t] & 1 << k) != 0)
                        {
                            push(n, c, nodeOf(k), 1 + t * KEYS + k);
                        }
                    }
                    n[base + PHASE] = DONE;
                    steps.add(new Step<>("T" + (t + 1) + " flushed", new State(n)));
                }
            }
            default ->
            {
            }
        }
    }

    private Step<State> commit(final int[] s, final int t)
    {
        final int base = TX + t * TX_WORDS;
        final int[] n = s.clone();
        for (int k = 0; k < KEYS; k++)
        {
            if ((READS[t] & 1 << k) != 0 && s[MEM + k] != s[base + READ_VERSION + k])
            {
                n[base + PHASE] = NOT_STARTED;
                Arrays.fill(n, base + TX_EPOCH, base + TX_WORDS, 0);
                Arrays.fill(n, base + PREVIOUS, base + TX_WORDS, NONE);
                return new Step<>("T" + (t + 1) + " finds a read key changed: starts over", new State(n));
            }
        }
        int epoch = s[base + TX_EPOCH];
        for (int k = 0; k < KEYS; k++)
        {
            if ((WRITES[t] & 1 << k) != 0 && variant != Variant.BLIND_BELOW)
            {
                epoch = Math.max(epoch, epochOf(s, s[MEM + k]));
            }
        }
        n[base + TX_EPOCH] = epoch;
        for (int k = 0; k < KEYS; k++)
        {
            if ((WRITES[t] & 1 << k) != 0)
            {
                n[base + PREVIOUS + k] = s[MEM + k];
                n[MEM + k] = t + 1;
            }
        }
        n[base + SEQ] = ++n[COMMITS];
        n[base + PHASE] = COMMITTED;
        return new Step<>("T" + (t + 1) + " commits at " + epoch, new State(n));
    }

    private void nodeSteps(final int[] s, final int node, final List<Step<State>> steps)
    {
        for (int c = 0; c < CLIENTS; c++)
        {
            final int ring = RINGS + (c * NODES + node) * RING_WORDS;
            if (s[ring] == 0)
            {
                continue;
            }
            final int[] n = s.clone();
            final int item = s[ring + 1];
            System.arraycopy(s, ring + 2, n, ring + 1, RING - 1);
            n[ring + RING] = 0;
            n[ring]--;
            final String label;
            if (item >= MARK_ITEM)
            {
                n[KNOWN + node * CLIENTS + c] = item - MARK_ITEM;
                label = "node " + node + " takes client " + c + "'s mark " + (item - MARK_ITEM);
            }
            else
            {
                if (variant == Variant.UNKNOWN_CLIENT_UNCOUNTED && n[KNOWN + node * CLIENTS + c] == UNKNOWN)
                {
                    n[KNOWN + node * CLIENTS + c] = 0;
                }
                final int t = (item - 1) / KEYS;
                final int k = (item - 1) % KEYS;
                takeNotice(s, n, t, k);
                label = "node " + node + " takes T" + (t + 1) + "'s notice of " + keyName(k);
            }
            steps.add(new Step<>(label, new State(n)));
        }
        final int durable = nodeDurable(s, node);
        final int[] synced = s.clone();
        for (int k = 0; k < KEYS; k++)
        {
            if (nodeOf(k) == node)
            {
                System.arraycopy(s, WRITTEN + k * (MAX_EPOCH + 1), synced, SYNCED + k * (MAX_EPOCH + 1),
                    MAX_EPOCH + 1);
            }
        }
        synced[KEPT + node] = Math.max(s[KEPT + node], durable);
        if (!Arrays.equals(synced, s))
        {
            steps.add(new Step<>("node " + node + " fsyncs (durable " + synced[KEPT + node] + ")",
                new State(synced)));
        }
        if (variant != Variant.NO_VERSIONS)
        {
            final int bound = variant == Variant.DROP_BY_OWN ? s[KEPT + node] : clusterDurable(s);
            final int[] dropped = s.clone();
            for (int k = 0; k < KEYS; k++)
            {
                if (nodeOf(k) == node)
                {
                    drop(s, dropped, k, WRITTEN + k * (MAX_EPOCH + 1), bound);
                    drop(s, dropped, k, SYNCED + k * (MAX_EPOCH + 1), bound);
                }
            }
            if (!Arrays.equals(dropped, s))
            {
                steps.add(new Step<>("node " + node + " drops below " + bound, new State(dropped)));
            }
        }
    }

    /**
     * The design: the named block becomes a version of the key at its epoch, beside the others of that epoch (which is
     * the last of them the versions' previous ones say, at recovery).
     */
    private void takeNotice(final int[] s, final int[] n, final int t, final int k)
    {
        final int disk = WRITTEN + k * (MAX_EPOCH + 1);
        switch (variant)
        {
            case NO_VERSIONS -> n[disk] = 1 << s[MEM + k];
            case CURRENT_ONLY -> n[disk + epochOf(s, s[MEM + k])] = 1 << s[MEM + k];
            case NO_PREVIOUS -> n[disk + epochOf(s, t + 1)] = 1 << t + 1;
            default -> n[disk + epochOf(s, t + 1)] |= 1 << t + 1;
        }
    }

    /** Versions older than the newest at or below the bound go. */
    private static void drop(final int[] s, final int[] n, final int k, final int disk, final int bound)
    {
        int keep = NONE;
        for (int e = 0; e <= Math.min(bound, MAX_EPOCH); e++)
        {
            if (n[disk + e] != 0)
            {
                keep = e;
            }
        }
        for (int e = 0; e < keep; e++)
        {
            n[disk + e] = 0;
        }
        if (keep != NONE)
        {
            n[disk + keep] = 1 << last(s, k, n[disk + keep]);
        }
    }

    /** @return of versions of a key in one epoch, the one no other names as the version before it. */
    private static int last(final int[] s, final int k, final int versions)
    {
        for (int v = 0; v <= TXNS; v++)
        {
            if ((versions & 1 << v) == 0)
            {
                continue;
            }
            boolean replaced = false;
            for (int u = 1; u <= TXNS; u++)
            {
                replaced |= u != v && (versions & 1 << u) != 0 && s[TX + (u - 1) * TX_WORDS + PREVIOUS + k] == v;
            }
            if (!replaced)
            {
                return v;
            }
        }
        throw new IllegalStateException("versions " + versions + " of key " + k + " each replaced by another");
    }

    private int nodeDurable(final int[] s, final int node)
    {
        int least = Integer.MAX_VALUE;
        for (int c = 0; c < CLIENTS; c++)
        {
            final int known = s[KNOWN + node * CLIENTS + c];
            if (known != UNKNOWN)
            {
                least = Math.min(least, known);
            }
        }
        return least == Integer.MAX_VALUE ? MAX_EPOCH : least;
    }

    private static int clusterDurable(final int[] s)
    {
        int least = Integer.MAX_VALUE;
        for (int node = 0; node < NODES; node++)
        {
            least = Math.min(least, s[KEPT + node]);
        }
        return least;
    }

    /** The epoch through which the client has flushed everything: below its cached one and its unflushed ones. */
    private int mark(final int[] s, final int c)
    {
        int least = s[CACHED + c];
        if (variant != Variant.MARK_IGNORES_IN_FLIGHT)
        {
            final int t = current(s, c);
            if (t != NONE && s[TX + t * TX_WORDS + PHASE] != NOT_STARTED)
            {
                least = Math.min(least, s[TX + t * TX_WORDS + TX_EPOCH]);
            }
        }
        return least - 1;
    }

    /** @return the client's transaction not yet flushed, or NONE. */
    private static int current(final int[] s, final int c)
    {
        for (final int t : RUNS[c])
        {
            if (s[TX + t * TX_WORDS + PHASE] != DONE)
            {
                return t;
            }
        }
        return NONE;
    }

    private static boolean roomInRings(final int[] s, final int c, final int items)
    {
        for (int node = 0; node < NODES; node++)
        {
            if (s[RINGS + (c * NODES + node) * RING_WORDS] + items > RING)
            {
                return false;
            }
        }
        return true;
    }

    private static void push(final int[] n, final int c, final int node, final int item)
    {
        final int ring = RINGS + (c * NODES + node) * RING_WORDS;
        n[ring + 1 + n[ring]] = item;
        n[ring]++;
    }

    private static int epochOf(final int[] s, final int version)
    {
        return version == 0 ? 0 : s[TX + (version - 1) * TX_WORDS + TX_EPOCH];
    }

    private static int nodeOf(final int key)
    {
        return key;
    }

    private static String keyName(final int key)
    {
        return key == 0 ? "a" : "b";
    }

    public History history(final State state)
    {
        return new History(new int[0], new int[0], 0);
    }

    public String violated(final State state, final boolean terminal)
    {
        final int[] s = state.words;
        final int d = clusterDurable(s);
        final String all = cameBack(s, d, recover(s, d, NONE), "every node crashes");
        if (all != null)
        {
            return all;
        }
        for (int node = 0; node < NODES; node++)
        {
            final int cut = variant == Variant.SOURCE_LEFT_OUT ? s[KEPT + node] : d;
            final String one = cameBack(s, cut, recover(s, cut, node), "node " + node + " crashes");
            if (one != null)
            {
                return one;
            }
        }
        if (terminal && d < MAX_EPOCH - 1)
        {
            return "every notice and mark was taken and fsynced, yet the durable epoch is " + d;
        }
        return null;
    }

    /**
     * @param crashed the node that crashed, or NONE: every node did.
     * @return per key, the version the cluster comes back with.
     */
    private int[] recover(final int[] s, final int d, final int crashed)
    {
        final int[] back = new int[KEYS];
        for (int k = 0; k < KEYS; k++)
        {
            final boolean lost = crashed == NONE || crashed == nodeOf(k);
            if (!lost && variant == Variant.NO_ROLLBACK)
            {
                back[k] = s[MEM + k];
                continue;
            }
            // a crashed node reads what it fsynced; a live one rolls back from what it wrote
            final int disk = (lost ? SYNCED : WRITTEN) + k * (MAX_EPOCH + 1);
            if (variant == Variant.NO_VERSIONS)
            {
                back[k] = lost ? last(s, k, s[disk]) : s[MEM + k];
                continue;
            }
            back[k] = NONE;
            for (int e = 0; e <= Math.min(d, MAX_EPOCH); e++)
            {
                if (s[disk + e] != 0)
                {
                    back[k] = last(s, k, s[disk + e]);
                }
            }
        }
        return back;
    }

    private String cameBack(final int[] s, final int d, final int[] back, final String how)
    {
        for (int k = 0; k < KEYS; k++)
        {
            if (back[k] == NONE)
            {
                return how + ": key " + keyName(k) + " has no version at or below " + d + " left on disk";
            }
        }
        if (!consistent(s, back))
        {
            return how + ": torn, " + describeBack(back) + " is no state the committed transactions leave";
        }
        if (variant == Variant.NO_VERSIONS)
        {
            return null;
        }
        int kept = 0;
        for (int t = 0; t < TXNS; t++)
        {
            if (s[TX + t * TX_WORDS + PHASE] >= COMMITTED && s[TX + t * TX_WORDS + TX_EPOCH] <= d)
            {
                kept |= 1 << t;
            }
        }
        if (!Arrays.equals(back, apply(s, kept)))
        {
            return how + ": " + describeBack(back) + " is not the state of the transactions at or below epoch " + d;
        }
        return null;
    }

    /** @return whether some set of committed transactions, closed under reads, leaves exactly {@code back}. */
    private static boolean consistent(final int[] s, final int[] back)
    {
        int committed = 0;
        for (int t = 0; t < TXNS; t++)
        {
            if (s[TX + t * TX_WORDS + PHASE] >= COMMITTED)
            {
                committed |= 1 << t;
            }
        }
        for (int set = committed; ; set = (set - 1) & committed)
        {
            if (closed(s, set) && Arrays.equals(back, apply(s, set)))
            {
                return true;
            }
            if (set == 0)
            {
                return false;
            }
        }
    }

    /** @return whether every transaction of the set read only writes of transactions in it. */
    private static boolean closed(final int[] s, final int set)
    {
        for (int t = 0; t < TXNS; t++)
        {
            if ((set & 1 << t) == 0)
            {
                continue;
            }
            for (int k = 0; k < KEYS; k++)
            {
                final int read = s[TX + t * TX_WORDS + READ_VERSION + k];
                if ((READS[t] & 1 << k) != 0 && read != 0 && (set & 1 << (read - 1)) == 0)
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return per key, the last write of the set's transactions in commit order (0: none). */
    private static int[] apply(final int[] s, final int set)
    {
        final int[] state = new int[KEYS];
        final int[] at = new int[KEYS];
        for (int t = 0; t < TXNS; t++)
        {
            final int seq = s[TX + t * TX_WORDS + SEQ];
            for (int k = 0; k < KEYS; k++)
            {
                if ((set & 1 << t) != 0 && (WRITES[t] & 1 << k) != 0 && seq > at[k])
                {
                    at[k] = seq;
                    state[k] = t + 1;
                }
            }
        }
        return state;
    }

    private static String describeBack(final int[] back)
    {
        return "a=" + version(back[0]) + " b=" + version(back[1]);
    }

    private static String versions(final int mask)
    {
        final StringBuilder out = new StringBuilder();
        for (int v = 0; v <= TXNS; v++)
        {
            if ((mask & 1 << v) != 0)
            {
                out.append(out.isEmpty() ? "" : "+").append(version(v));
            }
        }
        return out.isEmpty() ? "-" : out.toString();
    }

    private static String version(final int v)
    {
        return v == 0 ? "initial" : "T" + v;
    }

    public String describe(final State state)
    {
        final int[] s = state.words;
        final StringBuilder out = new StringBuilder("E=").append(s[EPOCH]).append(" mem ")
            .append(describeBack(new int[]{s[MEM], s[MEM + 1]}));
        for (int t = 0; t < TXNS; t++)
        {
            if (s[TX + t * TX_WORDS + PHASE] != NOT_STARTED)
            {
                out.append(" T").append(t + 1).append('@').append(s[TX + t * TX_WORDS + TX_EPOCH]);
            }
        }
        for (int node = 0; node < NODES; node++)
        {
            out.append(" | node ").append(node).append(" durable ").append(s[KEPT + node]).append(" disk");
            for (int e = 0; e <= MAX_EPOCH; e++)
            {
                final int v = s[SYNCED + node * (MAX_EPOCH + 1) + e];
                final int w = s[WRITTEN + node * (MAX_EPOCH + 1) + e];
                if (v != 0 || w != 0)
                {
                    out.append(' ').append(e).append(':').append(versions(w))
                        .append(v == w ? "" : "(synced " + versions(v) + ")");
                }
            }
        }
        return out.toString();
    }
}
