package io.dkv.client.replication;

import java.util.Arrays;

/**
 * One state of the membership change model, packed in an int array as {@link ModelState} is: each node's slot (the
 * write it names: 0 for the key's value from before the change, 1 or 2 for a writer's, {@link #ABSENT} on a node
 * that has no copy yet) and blocks; the driver's phase and work; each writer's and reader's program counter, view
 * of the phase and the words it read; the history so far. Copied on every step, never changed once explored.
 * Past the usual length: one accessor per packed field, which is the point of packing them in one place.
 */
final class MoveState
{
    static final int UNREAD = -1;
    /** No copy of the key: a read that returns it (a history shows it as 3) returns a value nobody wrote. */
    static final int ABSENT = 3;

    // writer program counters
    static final int INVOKE = 0;
    static final int WAIT = 1;
    static final int WRITE_BLOCKS = 2;
    static final int READ_SLOTS = 3;
    static final int DECIDE = 4;
    static final int FORCE = 5;
    static final int FORCE_READ_TAIL = 6;
    static final int FORCE_CAS = 7;
    static final int CHAIN = 8;
    static final int STUCK = 9;
    static final int DONE = 10;
    /** {@link MoveVariant#HANDOVER}: a writer in SWITCH READs the tail before the change: sealed or not. */
    static final int SEAL_READ = 11;
    /**
     * {@link MoveVariant#WRITERS_SEAL}: a writer in SWITCH seals the key itself: READs the member entering, then the
     * replicas before from the tail to the head, then decides (seals, copies, rolls forward, or reads again).
     */
    static final int SEAL_READ_ENTERING = 12;
    static final int SEAL_READ_BEFORE = 13;
    static final int SEAL_DECIDE = 14;
    /** The writer READs the tail before again, before it rolls a crashed writer's write forward. */
    static final int SEAL_TAIL_AGAIN = 15;
    /** {@link MoveVariant#WRITERS_SEAL}: a writer in SWITCH takes the path its time allows (see {@link WriterSeal}). */
    static final int SEAL_START = 16;

    // which placement a writer in SWITCH chains over ({@link MoveVariant#HANDOVER}): as its view says elsewhere
    static final int RULE_VIEW = 0;
    static final int RULE_BEFORE = 1;
    static final int RULE_AFTER = 2;

    // reader program counters (INVOKE and DONE as a writer's)
    static final int READING = 1;

    // driver program counters: its work in the current phase
    static final int WORK_PENDING = 0;
    static final int FILL_READ_ENTERING = 1;
    static final int FILL_READ_BEFORE = 2;
    static final int FILL_DECIDE = 3;
    static final int SETTLE_CAS = 4;
    static final int WORK_DONE = 5;
    /** {@link MoveVariant#HANDOVER}: the driver READs the tail before again, before it rolls its write forward. */
    static final int SEAL_RECHECK = 6;

    // globals after the slots and blocks
    private static final int PHASE = 0;
    private static final int DRIVER_PC = 1;
    private static final int DRIVER_AUX = 2;
    private static final int DRIVER_TARGET = 3;
    private static final int CRASHES_LEFT = 4;
    private static final int WIN_COUNTER = 5;
    private static final int SEALED = 6;
    /** {@link MoveVariant#WRITERS_SEAL}: the driver began its work in SWITCH (no writer goes over before since). */
    private static final int SWITCH_WORK = 7;
    private static final int DRIVER_READ = 8;

    // per writer
    private static final int PC = 0;
    private static final int AUX = 1;
    private static final int ATTEMPTS = 2;
    private static final int CRASHED = 3;
    private static final int WIN_ORDER = 4;
    private static final int LATE_NODE = 5;
    private static final int LATE_EXPECTED = 6;
    private static final int LATE_DESIRED = 7;
    private static final int LATE_WINS_TAIL = 8;
    private static final int VIEW = 9;
    private static final int RULE = 10;
    private static final int LATE_SEALED = 11;
    private static final int SAW_SEAL = 12;
    private static final int READ = 13;

    // per reader
    private static final int READER_PC = 0;
    private static final int READER_VIEW = 1;
    private static final int READER_AUX = 2;
    private static final int READ_BEFORE_HEAD = 3;
    private static final int READ_AFTER_HEAD = 4;
    private static final int READER_LENGTH = 5;

    final MoveScope scope;
    final int[] v;
    private final int n;
    private final int globalBase;
    private final int writerBase;
    private final int writerLength;
    private final int readerBase;
    private final int historyBase;

    private MoveState(final MoveScope scope, final int[] values)
    {
        this.scope = scope;
        this.v = values;
        n = scope.placement().nodes();
        globalBase = 2 * n;
        writerBase = globalBase + DRIVER_READ + n;
        writerLength = READ + n;
        readerBase = writerBase + Scope.WRITERS * writerLength;
        historyBase = readerBase + scope.readers() * READER_LENGTH;
    }

    static MoveState initial(final MoveScope scope)
    {
        final int n = scope.placement().nodes();
        final int length = 2 * n + DRIVER_READ + n + Scope.WRITERS * (READ + n) + scope.readers() * READER_LENGTH +
            HistoryEncoding.length(scope.operations());
        final MoveState state = new MoveState(scope, new int[length]);
        for (int node = 0; node < n; node++)
        {
            // the key was written long before the change: its value 0 is settled on the replicas before it
            final boolean entering = scope.placement().isEntering(node);
            state.slot(node, entering ? ABSENT : 0);
            state.v[n + node] = entering ? 0 : 1;
        }
        state.v[state.globalBase + CRASHES_LEFT] = scope.writerCrashes();
        state.clearDriverReads();
        for (int w = 1; w <= Scope.WRITERS; w++)
        {
            state.clearRead(w);
        }
        for (int reader = 0; reader < scope.readers(); reader++)
        {
            state.clearReaderReads(reader);
        }
        return state;
    }

    MoveState copy()
    {
        return new MoveState(scope, v.clone());
    }

    Placement placement()
    {
        return scope.placement();
    }

    // nodes ---------------------------------------------------------------------------------------

    int slot(final int node)
    {
        return v[node];
    }

    void slot(final int node, final int value)
    {
        v[node] = value;
    }

    boolean holdsBlock(final int node, final int value)
    {
        return (v[n + node] & (1 << value)) != 0;
    }

    void writeBlock(final int node, final int value)
    {
        v[n + node] |= 1 << value;
    }

    /** A copy (a refill or a roll forward) writes the write's block, same write id, then swaps the slot to it. */
    void copy(final int node, final int value)
    {
        writeBlock(node, value);
        slot(node, value);
    }

    // the driver ----------------------------------------------------------------------------------

    Phase phase()
    {
        return Phase.of(v[globalBase + PHASE]);
    }

    void moveTo(final Phase phase)
    {
        v[globalBase + PHASE] = phase.ordinal();
        v[globalBase + SWITCH_WORK] = 0;
        driver(WORK_PENDING, 0);
        driverTarget(0);
        clearDriverReads();
    }

    /** @return whether the driver began its work in SWITCH. */
    boolean switchWork()
    {
        return v[globalBase + SWITCH_WORK] == 1;
    }

    void switchWork(final boolean begun)
    {
        v[globalBase + SWITCH_WORK] = begun ? 1 : 0;
    }

    /** @return whether the tail before the change is sealed: the key's writes decide at the tail after it. */
    boolean sealed()
    {
        return v[globalBase + SEALED] == 1;
    }

    void sealed(final boolean sealed)
    {
        v[globalBase + SEALED] = sealed ? 1 : 0;
    }

    int driverPc()
    {
        return v[globalBase + DRIVER_PC];
    }

    int driverAux()
    {
        return v[globalBase + DRIVER_AUX];
    }

    void driver(final int pc, final int aux)
    {
        v[globalBase + DRIVER_PC] = pc;
        v[globalBase + DRIVER_AUX] = aux;
    }

    /** @return which entering member the fill is at (an index into {@link Placement#entering()}). */
    int driverTarget()
    {
        return v[globalBase + DRIVER_TARGET];
    }

    void driverTarget(final int target)
    {
        v[globalBase + DRIVER_TARGET] = target;
    }

    int driverRead(final int node)
    {
        return v[globalBase + DRIVER_READ + node];
    }

    void driverRead(final int node, final int value)
    {
        v[globalBase + DRIVER_READ + node] = value;
    }

    void clearDriverReads()
    {
        for (int node = 0; node < n; node++)
        {
            driverRead(node, UNREAD);
        }
    }

    // writers (1 and 2; writer w puts the value w) ----------------------------------------------------

    private int w(final int writer, final int field)
    {
        return writerBase + (writer - 1) * writerLength + field;
    }

    int pc(final int writer)
    {
        return v[w(writer, PC)];
    }

    void pc(final int writer, final int pc, final int aux)
    {
        v[w(writer, PC)] = pc;
        v[w(writer, AUX)] = aux;
    }

    int aux(final int writer)
    {
        return v[w(writer, AUX)];
    }

    int attempts(final int writer)
    {
        return v[w(writer, ATTEMPTS)];
    }

    void attempts(final int writer, final int attempts)
    {
        v[w(writer, ATTEMPTS)] = attempts;
    }

    Phase view(final int writer)
    {
        return Phase.of(v[w(writer, VIEW)]);
    }

    void view(final int writer, final Phase phase)
    {
        v[w(writer, VIEW)] = phase.ordinal();
    }

    int rule(final int writer)
    {
        return v[w(writer, RULE)];
    }

    void rule(final int writer, final int rule)
    {
        v[w(writer, RULE)] = rule;
    }

    /** @return whether the writer's READs since it last started found the tail before the change sealed. */
    boolean sawSeal(final int writer)
    {
        return v[w(writer, SAW_SEAL)] == 1;
    }

    void sawSeal(final int writer, final boolean saw)
    {
        v[w(writer, SAW_SEAL)] = saw ? 1 : 0;
    }

    /** @return whether the writer may still act on its view: before and during its put, and while a CAS it posted
     * before it crashed may still land (until its operation's deadline). */
    boolean holdsView(final int writer)
    {
        return pc(writer) != DONE || lateNode(writer) >= 0;
    }

    boolean crashed(final int writer)
    {
        return v[w(writer, CRASHED)] == 1;
    }

    int writerCrashesLeft()
    {
        return v[globalBase + CRASHES_LEFT];
    }

    /**
     * @param lateCas the CAS it had posted when it stopped, {node, expected, desired, 1 when it is for the tail,
     *                1 when it chains over the placement after the change}, which may still land later; or null.
     */
    void crashWriter(final int writer, final int[] lateCas)
    {
        v[w(writer, CRASHED)] = 1;
        v[globalBase + CRASHES_LEFT]--;
        finish(writer);
        if (lateCas != null)
        {
            v[w(writer, LATE_NODE)] = lateCas[0] + 1;
            v[w(writer, LATE_EXPECTED)] = lateCas[1];
            v[w(writer, LATE_DESIRED)] = lateCas[2];
            v[w(writer, LATE_WINS_TAIL)] = lateCas[3];
            v[w(writer, LATE_SEALED)] = lateCas[4];
        }
        else
        {
            v[w(writer, VIEW)] = 0;
        }
    }

    /** @return the node a crashed writer's late CAS goes to, or -1 when it has none (left). */
    int lateNode(final int writer)
    {
        return v[w(writer, LATE_NODE)] - 1;
    }

    int lateExpected(final int writer)
    {
        return v[w(writer, LATE_EXPECTED)];
    }

    int lateDesired(final int writer)
    {
        return v[w(writer, LATE_DESIRED)];
    }

    boolean lateCasIsForTheTail(final int writer)
    {
        return v[w(writer, LATE_WINS_TAIL)] == 1;
    }

    /** @return whether the crashed writer's late CAS is of a chain over the placement after the change. */
    boolean lateCasChainsAfter(final int writer)
    {
        return v[w(writer, LATE_SEALED)] == 1;
    }

    /** The crashed writer's deadline has passed with it: it holds no view any more. */
    void lateCasLanded(final int writer)
    {
        v[w(writer, LATE_NODE)] = 0;
        v[w(writer, LATE_EXPECTED)] = 0;
        v[w(writer, LATE_DESIRED)] = 0;
        v[w(writer, LATE_WINS_TAIL)] = 0;
        v[w(writer, LATE_SEALED)] = 0;
        v[w(writer, VIEW)] = 0;
    }

    /**
     * @return the order in which a write won a tail (1 first); 0 for the value from before the change, -1 for no
     * copy at all.
     */
    int winOrder(final int value)
    {
        return value == 0 ? 0 : value == ABSENT ? -1 : v[w(value, WIN_ORDER)];
    }

    void wonTail(final int writer)
    {
        v[w(writer, WIN_ORDER)] = ++v[globalBase + WIN_COUNTER];
    }

    int read(final int writer, final int node)
    {
        return v[w(writer, READ) + node];
    }

    void read(final int writer, final int node, final int value)
    {
        v[w(writer, READ) + node] = value;
    }

    void clearRead(final int writer)
    {
        v[w(writer, SAW_SEAL)] = 0;
        for (int node = 0; node < n; node++)
        {
            v[w(writer, READ) + node] = UNREAD;
        }
    }

    /** A writer that is done keeps only what the history and the invariants need. */
    void finish(final int writer)
    {
        pc(writer, DONE, 0);
        attempts(writer, 0);
        rule(writer, RULE_VIEW);
        clearRead(writer);
        if (!crashed(writer))
        {
            v[w(writer, VIEW)] = 0;
        }
    }

    // readers -------------------------------------------------------------------------------------

    private int r(final int reader, final int field)
    {
        return readerBase + reader * READER_LENGTH + field;
    }

    int readerPc(final int reader)
    {
        return v[r(reader, READER_PC)];
    }

    void readerPc(final int reader, final int pc)
    {
        v[r(reader, READER_PC)] = pc;
        if (pc == DONE)
        {
            v[r(reader, READER_VIEW)] = 0;
            clearReaderReads(reader);
        }
    }

    Phase readerView(final int reader)
    {
        return Phase.of(v[r(reader, READER_VIEW)]);
    }

    void readerView(final int reader, final Phase phase)
    {
        v[r(reader, READER_VIEW)] = phase.ordinal();
    }

    /** @return which of the two heads a reader in SWITCH has read: bit 0 the head before, bit 1 the head after. */
    int readerAux(final int reader)
    {
        return v[r(reader, READER_AUX)];
    }

    int readerRead(final int reader, final boolean afterHead)
    {
        return v[r(reader, afterHead ? READ_AFTER_HEAD : READ_BEFORE_HEAD)];
    }

    void readerRead(final int reader, final boolean afterHead, final int value)
    {
        v[r(reader, afterHead ? READ_AFTER_HEAD : READ_BEFORE_HEAD)] = value;
        v[r(reader, READER_AUX)] |= afterHead ? 2 : 1;
    }

    void clearReaderReads(final int reader)
    {
        v[r(reader, READER_AUX)] = 0;
        v[r(reader, READ_BEFORE_HEAD)] = UNREAD;
        v[r(reader, READ_AFTER_HEAD)] = UNREAD;
    }

    // the history ---------------------------------------------------------------------------------

    int status(final int op)
    {
        return HistoryEncoding.status(v, historyBase, op);
    }

    /** Invoking an operation orders it after every operation that has answered. */
    void invoke(final int op)
    {
        HistoryEncoding.invoke(v, historyBase, scope.operations(), op);
    }

    void answer(final int op, final int status, final int readValue)
    {
        HistoryEncoding.answer(v, historyBase, op, status, readValue);
    }

    History history()
    {
        return HistoryEncoding.history(v, historyBase, scope.operations());
    }

    /** @return the phase and each node's slot, the nodes before the change first: "FILL A:0 X:1 | N:-". */
    String nodesToString()
    {
        final StringBuilder out = new StringBuilder(phase().name()).append(' ');
        final Placement placement = placement();
        for (int node = 0; node < n; node++)
        {
            out.append(node == 0 ? "" : placement.isEntering(node) && !placement.isEntering(node - 1) ? " | " : " ")
                .append(placement.name(node)).append(':').append(slot(node) == ABSENT ? "-" : slot(node))
                .append(sealed() && node == placement.before()[placement.before().length - 1] ? "*" : "");
        }
        return out.toString();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof MoveState s && Arrays.equals(s.v, v);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(v);
    }
}
