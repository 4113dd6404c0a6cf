package io.dkv.client.replication;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Restarts from disk (kv-memory-node/README.md, "Restarting from disk") for one key on two replicas, under durability
 * sync: each replica has its memory (the write its slot names, or none once it crashed) and its disk (the write its
 * node last put there), a membership state (live, down, joining), when it last stopped serving, and whether it came
 * back with its memory lost. Two writers put 1 and 2; a reader reads once or twice. Steps, each atomic:
 * <ul>
 *     <li>a write: onto every replica that serves or joins, as one step (the chain itself is checked apart, by
 *     {@link ReplicationProtocolModelTest}), its blocks pending; it waits while every replica joins, and fails having
 *     taken no effect while every replica is down; then one PERSIST per replica (the node writes what its memory holds
 *     now); answered once each is on disk, or with no known outcome when a replica crashed first;</li>
 *     <li>a read: of the first serving replica; a pending value is settled (put on disk) first, on the replicas
 *     {@link Variant} says; it waits while every replica joins;</li>
 *     <li>a replica crash: its memory gone, declared down at once (a new membership epoch), with when it left;</li>
 *     <li>a restart: memory loaded from its disk, joining; restored from its disk, or marked memory-lost
 *     ({@link Variant#NOT_RESTORED});</li>
 *     <li>a refill: a joiner copies the serving replica's write (and puts it on its disk) and is live; with none
 *     serving, the copy of the replica that served last, if it is back with its memory; else it waits.</li>
 *     <li>a writer crash at any step after it invoked: its write goes no further.</li>
 * </ul>
 * Replicas crash while a client has work left, up to the scope's count; a run ends when every client is done (or
 * crashed) and every replica is live. Checked: the history at every state, and that no run ends with a client waiting
 * for ever.
 */
final class RecoveryModel implements Model<RecoveryModel.State>
{
    /** What the protocol does; the broken forms a checker must catch. */
    enum Variant
    {
        /**
         * The design: a writer's block at the key's head stays pending until every other replica has the write on
         * disk (its node is told to settle it once they answered), and a reader that meets a pending head, or a refill
         * that copies a pending block, settles the write on every replica that holds it first. So a value readers see
         * is on every replica's disk that holds it, whichever replica served last.
         */
        HEAD_LAST,
        /**
         * {@link #HEAD_LAST} but for the refill, which copies a pending block as settled without settling it elsewhere
         * first (the client did until its refill settled one as a reader does).
         */
        REFILL_COPIES_PENDING,
        /**
         * A writer tells the head's node last, once every other replica answered, and each node settles its block as
         * it writes it; a reader, and a refill, settle a pending head alone.
         */
        HEAD_TOLD_LAST,
        /** Every replica's PERSIST settles its block at once; a reader settles a pending head everywhere. */
        SETTLE_EVERYWHERE,
        /** A reader settles a pending value on the replica it read alone (its PERSIST goes to the head's node). */
        SETTLE_HEAD,
        /** The MetaServer marks a restarted replica memory-lost although it loaded its disk. */
        NOT_RESTORED,
        /** A refill with no serving replica clears the joiner's key instead of settling on the last to serve. */
        CLEARS_ON_REFILL,
        /**
         * {@link #HEAD_LAST} but a node settles whatever block its index holds when a PERSIST lands, not the one the
         * PERSIST named: an older writer's PERSIST at another replica settles the newer write's head early.
         */
        SETTLES_NEWER
    }

    static final int REPLICAS = 2;
    /** Two writers and up to two reads, one after the other. */
    private static final int OPS = Scope.WRITERS + 2;
    private static final int READ = Scope.WRITERS;
    private static final int EMPTY = -1;
    private static final int LIVE = 0;
    private static final int DOWN = 1;
    private static final int JOINING = 2;
    private static final int NOT_INVOKED = 0;
    private static final int INVOKED = 1;
    private static final int WRITTEN = 2;
    private static final int DONE = 3;
    private static final int CRASHED = 4;

    // the state's words
    private static final int MEM = 0;
    private static final int DISK = MEM + REPLICAS;
    private static final int STATUS = DISK + REPLICAS;
    private static final int LEFT = STATUS + REPLICAS;
    private static final int LOST = LEFT + REPLICAS;
    private static final int PENDING = LOST + REPLICAS;
    private static final int EPOCH = PENDING + REPLICAS;
    private static final int PC = EPOCH + 1;
    /** Per writer: the replicas written (bits) and those whose PERSIST is done, and whether one crashed first. */
    private static final int TARGETS = PC + OPS;
    private static final int PERSISTED = TARGETS + Scope.WRITERS;
    private static final int BROKEN = PERSISTED + Scope.WRITERS;
    /** Per writer: the replica reads went to when it wrote (its head). */
    private static final int HEAD = BROKEN + Scope.WRITERS;
    private static final int HSTATUS = HEAD + Scope.WRITERS;
    private static final int HREAD = HSTATUS + OPS;
    private static final int PRECEDENCE = HREAD + OPS;
    private static final int ANSWERED = PRECEDENCE + 1;
    private static final int CRASHES_LEFT = ANSWERED + 1;
    private static final int WRITER_CRASHES_LEFT = CRASHES_LEFT + 1;
    private static final int WORDS = WRITER_CRASHES_LEFT + 1;

    /** A state: its words compared by value. */
    static final class State
    {
        private final int[] words;

        State(final int[] words)
        {
            this.words = canonical(words);
        }

        /**
         * Only the order of the epochs in which replicas left, and that the membership's epoch comes after them,
         * matter to the protocol: renumbered 1, 2, ... so that runs differing in epochs alone are one state.
         */
        private static int[] canonical(final int[] words)
        {
            int rank = 0;
            int previous = 0;
            final int[] order = new int[REPLICAS];
            for (int r = 0; r < REPLICAS; r++)
            {
                order[r] = words[LEFT + r];
            }
            Arrays.sort(order);
            final int[] renumbered = new int[REPLICAS];
            for (final int left : order)
            {
                if (left != 0 && left != previous)
                {
                    rank++;
                    previous = left;
                }
                for (int r = 0; r < REPLICAS; r++)
                {
                    if (left != 0 && words[LEFT + r] == left)
                    {
                        renumbered[r] = rank;
                    }
                }
            }
            System.arraycopy(renumbered, 0, words, LEFT, REPLICAS);
            words[EPOCH] = rank + 1;
            return words;
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

    private final int replicaCrashes;
    private final int writerCrashes;
    private final int reads;
    private final Variant variant;

    /** @param reads the reader's reads, one after the other: 1 or 2. */
    RecoveryModel(final int replicaCrashes, final int writerCrashes, final int reads, final Variant variant)
    {
        if (reads < 1 || reads > OPS - Scope.WRITERS)
        {
            throw new IllegalArgumentException("reads=" + reads + ": 1 or 2");
        }
        this.replicaCrashes = replicaCrashes;
        this.writerCrashes = writerCrashes;
        this.reads = reads;
        this.variant = variant;
    }

    public String name()
    {
        return "recovery r=2 replicaCrashes=" + replicaCrashes + " writerCrashes=" + writerCrashes + " reads=" +
            reads + " " + variant;
    }

    public State initial()
    {
        final int[] w = new int[WORDS];
        w[EPOCH] = 1;
        w[CRASHES_LEFT] = replicaCrashes;
        w[WRITER_CRASHES_LEFT] = writerCrashes;
        return new State(w);
    }

    public List<Step<State>> steps(final State state)
    {
        final int[] s = state.words;
        final List<Step<State>> steps = new ArrayList<>();
        for (int w = 0; w < Scope.WRITERS; w++)
        {
            writerSteps(s, w, steps);
        }
        readerSteps(s, steps);
        final boolean clientsLeft = clientsLeft(s);
        for (int r = 0; r < REPLICAS; r++)
        {
            if (clientsLeft && s[CRASHES_LEFT] > 0 && s[STATUS + r] != DOWN)
            {
                steps.add(new Step<>("replica " + r + " crashes", new State(crash(s, r))));
            }
            if (s[STATUS + r] == DOWN)
            {
                steps.add(new Step<>("replica " + r + " restarts from its disk", new State(restart(s, r))));
            }
            if (s[STATUS + r] == JOINING)
            {
                final int[] refilled = refill(s, r);
                if (refilled != null)
                {
                    steps.add(new Step<>("replica " + r + " is refilled and live", new State(refilled)));
                }
            }
        }
        return steps;
    }

    private void writerSteps(final int[] s, final int w, final List<Step<State>> steps)
    {
        final int pc = s[PC + w];
        if (pc == NOT_INVOKED)
        {
            steps.add(new Step<>("W" + (w + 1) + " invokes put(" + (w + 1) + ")", new State(invoke(s, w))));
            return;
        }
        if (pc == INVOKED)
        {
            if (!anyServing(s))
            {
                if (!anyJoining(s))
                {
                    final int[] n = s.clone();
                    n[PC + w] = DONE;
                    answer(n, w, History.FAILED, 0);
                    steps.add(new Step<>("W" + (w + 1) + " fails: every replica down", new State(n)));
                }
            }
            else
            {
                final int[] n = s.clone();
                for (int r = 0; r < REPLICAS; r++)
                {
                    if (n[STATUS + r] != DOWN)
                    {
                        n[MEM + r] = w + 1;
                        n[PENDING + r] = 1;
                        n[TARGETS + w] |= 1 << r;
                    }
                }
                n[PC + w] = WRITTEN;
                n[HEAD + w] = firstServing(s);
                steps.add(new Step<>("W" + (w + 1) + " writes its blocks (pending)", new State(n)));
            }
        }
        if (pc == WRITTEN)
        {
            for (int r = 0; r < REPLICAS; r++)
            {
                final int bit = 1 << r;
                final boolean othersFirst = variant == Variant.HEAD_TOLD_LAST && r == s[HEAD + w] &&
                    (s[PERSISTED + w] | bit) != s[TARGETS + w];
                if ((s[TARGETS + w] & bit) != 0 && (s[PERSISTED + w] & bit) == 0 && !othersFirst)
                {
                    final int[] n = s.clone();
                    n[PERSISTED + w] |= bit;
                    if ((n[BROKEN + w] & bit) == 0)
                    {
                        // the node writes what its memory holds now, then settles the block the PERSIST named (a
                        // newer write's stays pending): the head only once every other replica did, where the design
                        // says so
                        n[DISK + r] = n[MEM + r] == EMPTY ? n[DISK + r] : n[MEM + r];
                        final boolean headLast = variant == Variant.HEAD_LAST ||
                            variant == Variant.REFILL_COPIES_PENDING || variant == Variant.SETTLES_NEWER;
                        final boolean named = n[MEM + r] == w + 1 || variant == Variant.SETTLES_NEWER ||
                            variant == Variant.SETTLE_EVERYWHERE || variant == Variant.HEAD_TOLD_LAST;
                        if ((!headLast || r != n[HEAD + w]) && named)
                        {
                            n[PENDING + r] = 0;
                        }
                    }
                    finishWriteIfPersisted(n, w);
                    steps.add(new Step<>("W" + (w + 1) + "'s PERSIST at replica " + r, new State(n)));
                }
            }
        }
        if ((pc == INVOKED || pc == WRITTEN) && s[WRITER_CRASHES_LEFT] > 0)
        {
            final int[] n = s.clone();
            n[PC + w] = CRASHED;
            n[WRITER_CRASHES_LEFT]--;
            steps.add(new Step<>("W" + (w + 1) + " crashes", new State(n)));
        }
    }

    private static void finishWriteIfPersisted(final int[] n, final int w)
    {
        if (n[PERSISTED + w] != n[TARGETS + w])
        {
            return;
        }
        final int head = n[HEAD + w];
        if (n[BROKEN + w] == 0 && head >= 0 && n[MEM + head] == w + 1)
        {
            // every replica has it on disk: the head's node is told to settle it (with the answer: the writer does not
            // wait for it, and a reader that meets it pending meanwhile settles it everywhere itself)
            n[PENDING + head] = 0;
        }
        n[PC + w] = DONE;
        // a replica that crashed before its PERSIST: the writer is told it may or may not have taken effect
        answer(n, w, n[BROKEN + w] != 0 ? History.PENDING : History.OK, 0);
    }

    private void readerSteps(final int[] s, final List<Step<State>> steps)
    {
        for (int read = READ; read < READ + reads; read++)
        {
            final int pc = s[PC + read];
            if (pc == DONE)
            {
                continue;
            }
            final String name = History.name(read);
            if (pc == NOT_INVOKED)
            {
                steps.add(new Step<>(name + " invokes get()", new State(invoke(s, read))));
                return;
            }
            final int head = firstServing(s);
            if (head < 0)
            {
                if (!anyJoining(s))
                {
                    final int[] n = s.clone();
                    n[PC + read] = DONE;
                    answer(n, read, History.FAILED, 0);
                    steps.add(new Step<>(name + " fails: every replica down", new State(n)));
                }
                return;
            }
            final int[] n = s.clone();
            final int value = n[MEM + head];
            if (n[PENDING + head] != 0)
            {
                for (int r = 0; r < REPLICAS; r++)
                {
                    final boolean settlesOthers = variant != Variant.SETTLE_HEAD && variant != Variant.HEAD_TOLD_LAST;
                    final boolean settles = r == head || (settlesOthers && n[STATUS + r] != DOWN &&
                        n[MEM + r] == value && n[PENDING + r] != 0);
                    if (settles)
                    {
                        n[DISK + r] = value;
                        n[PENDING + r] = 0;
                    }
                }
            }
            n[PC + read] = DONE;
            answer(n, read, History.OK, value);
            steps.add(new Step<>(name + " reads replica " + head + ": " + value, new State(n)));
            return;
        }
    }

    private static int[] invoke(final int[] s, final int op)
    {
        final int[] n = s.clone();
        n[PC + op] = INVOKED;
        n[HSTATUS + op] = History.PENDING;
        for (int before = 0; before < OPS; before++)
        {
            if ((n[ANSWERED] & (1 << before)) != 0)
            {
                n[PRECEDENCE] |= 1 << (before * OPS + op);
            }
        }
        return n;
    }

    private static void answer(final int[] n, final int op, final int status, final int value)
    {
        n[HSTATUS + op] = status;
        n[HREAD + op] = value;
        n[ANSWERED] |= 1 << op;
    }

    private static int[] crash(final int[] s, final int r)
    {
        final int[] n = s.clone();
        if (n[STATUS + r] == LIVE)
        {
            n[LEFT + r] = n[EPOCH] + 1;
        }
        n[EPOCH]++;
        n[STATUS + r] = DOWN;
        n[MEM + r] = EMPTY;
        n[PENDING + r] = 0;
        n[CRASHES_LEFT]--;
        for (int w = 0; w < Scope.WRITERS; w++)
        {
            if (n[PC + w] == WRITTEN && (n[TARGETS + w] & ~n[PERSISTED + w] & (1 << r)) != 0)
            {
                n[BROKEN + w] |= 1 << r;
            }
        }
        return n;
    }

    private int[] restart(final int[] s, final int r)
    {
        final int[] n = s.clone();
        n[EPOCH]++;
        n[STATUS + r] = JOINING;
        n[MEM + r] = n[DISK + r];
        n[PENDING + r] = 0;
        if (variant == Variant.NOT_RESTORED)
        {
            n[LOST + r] = 1;
        }
        return n;
    }

    /** @return the state after replica {@code r}'s refill, or null while it cannot end. */
    private int[] refill(final int[] s, final int r)
    {
        final int[] n = s.clone();
        final int serving = firstServing(s);
        int from = serving;
        if (serving < 0)
        {
            if (variant == Variant.CLEARS_ON_REFILL)
            {
                n[MEM + r] = 0;
                n[DISK + r] = 0;
                return live(n, r);
            }
            from = lastToServe(s);
            if (from < 0)
            {
                return null;
            }
        }
        final int value = n[MEM + from];
        if ((variant == Variant.HEAD_LAST || variant == Variant.SETTLES_NEWER) && n[PENDING + from] != 0)
        {
            // the copy would be a settled block of a write not on every disk yet: settled everywhere first, as a
            // reader of a pending block does
            for (int other = 0; other < REPLICAS; other++)
            {
                if (n[STATUS + other] != DOWN && n[MEM + other] == value && n[PENDING + other] != 0)
                {
                    n[DISK + other] = value;
                    n[PENDING + other] = 0;
                }
            }
        }
        n[MEM + r] = value;
        n[DISK + r] = value;
        n[PENDING + r] = 0;
        return live(n, r);
    }

    private static int[] live(final int[] n, final int r)
    {
        n[STATUS + r] = LIVE;
        n[LEFT + r] = 0;
        n[LOST + r] = 0;
        n[EPOCH]++;
        return n;
    }

    /** @return the replica that stopped serving last, when it is back joining with its memory; else -1. */
    private static int lastToServe(final int[] s)
    {
        int last = -1;
        for (int r = 0; r < REPLICAS; r++)
        {
            if (s[LEFT + r] == 0)
            {
                return -1;
            }
            if (last < 0 || s[LEFT + r] > s[LEFT + last])
            {
                last = r;
            }
        }
        return s[STATUS + last] == JOINING && s[LOST + last] == 0 ? last : -1;
    }

    private static int firstServing(final int[] s)
    {
        for (int r = 0; r < REPLICAS; r++)
        {
            if (s[STATUS + r] == LIVE)
            {
                return r;
            }
        }
        return -1;
    }

    private static boolean anyServing(final int[] s)
    {
        return firstServing(s) >= 0;
    }

    private static boolean anyJoining(final int[] s)
    {
        for (int r = 0; r < REPLICAS; r++)
        {
            if (s[STATUS + r] == JOINING)
            {
                return true;
            }
        }
        return false;
    }

    private boolean clientsLeft(final int[] s)
    {
        for (int op = 0; op < Scope.WRITERS + reads; op++)
        {
            if (s[PC + op] != DONE && s[PC + op] != CRASHED)
            {
                return true;
            }
        }
        return false;
    }

    public History history(final State state)
    {
        final int[] s = state.words;
        return new History(Arrays.copyOfRange(s, HSTATUS, HSTATUS + OPS), Arrays.copyOfRange(s, HREAD, HREAD + OPS),
            s[PRECEDENCE]);
    }

    public String violated(final State state, final boolean terminal)
    {
        final int[] s = state.words;
        if (terminal && clientsLeft(s))
        {
            return "a client waits for ever: no replica serves and none can be refilled (" + describe(state) + ")";
        }
        return null;
    }

    public String describe(final State state)
    {
        final int[] s = state.words;
        final StringBuilder out = new StringBuilder();
        for (int r = 0; r < REPLICAS; r++)
        {
            out.append(r == 0 ? "" : " | ").append("replica ").append(r).append(' ')
                .append(switch (s[STATUS + r])
                {
                    case LIVE -> "live";
                    case DOWN -> "down";
                    default -> "joining";
                })
                .append(" mem=").append(s[MEM + r] == EMPTY ? "-" : Integer.toString(s[MEM + r]))
                .append(s[PENDING + r] != 0 ? "(pending)" : "").append(" disk=").append(s[DISK + r])
                .append(s[LEFT + r] != 0 ? " left@" + s[LEFT + r] : "").append(s[LOST + r] != 0 ? " lost" : "");
        }
        return out.toString();
    }
}
