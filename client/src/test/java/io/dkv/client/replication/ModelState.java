package io.dkv.client.replication;

import java.util.Arrays;

/**
 * One state of the model, packed in an int array so that visited states are cheap to store and compare: each
 * replica's slot (the write it names: 0 for the initial "absent", 1 or 2 for a writer's value), whether the replica
 * is live, which blocks it holds; each writer's program counter and the slot words it read; the reader's; the
 * history so far. Copied on every step, never changed once explored.
 */
final class ModelState
{
    static final int UNREAD = -1;

    // writer program counters
    static final int INVOKE = 0;
    static final int WRITE_BLOCKS = 1;
    static final int READ_SLOTS = 2;
    static final int DECIDE = 3;
    static final int CHAIN = 4;
    static final int DONE = 5;

    // per writer: pc, aux (the replica a phase is at, or those read), attempts used, crashed, tail-win order,
    // a late CAS, the tail it won, then the words read
    private static final int PC = 0;
    private static final int AUX = 1;
    private static final int ATTEMPTS = 2;
    private static final int CRASHED = 3;
    private static final int WIN_ORDER = 4;
    private static final int LATE_REPLICA = 5;
    private static final int LATE_EXPECTED = 6;
    private static final int LATE_DESIRED = 7;
    private static final int LATE_WINS_TAIL = 8;
    private static final int TAIL_WON = 9;
    private static final int READ = 10;

    final Scope scope;
    final int[] v;
    private final int r;
    private final int writerBase;
    private final int writerLength;
    private final int readerBase;
    private final int historyBase;

    private ModelState(final Scope scope, final int[] values)
    {
        this.scope = scope;
        this.v = values;
        r = scope.replicas();
        // slots, live flags, blocks, then crash budgets and the tail-win counter
        writerBase = 3 * r + 3;
        writerLength = READ + r;
        // the reader: pc and how many reads it has made
        readerBase = writerBase + Scope.WRITERS * writerLength;
        // the history: status and read value per operation, then the precedence bits
        historyBase = readerBase + 2;
    }

    static ModelState initial(final Scope scope)
    {
        final int r = scope.replicas();
        final int ops = scope.operations();
        final int length = 3 * r + 3 + Scope.WRITERS * (READ + r) + 2 + HistoryEncoding.length(ops);
        final ModelState state = new ModelState(scope, new int[length]);
        for (int i = 0; i < r; i++)
        {
            state.v[r + i] = 1;
        }
        state.v[3 * r] = scope.replicaCrashes();
        state.v[3 * r + 1] = scope.writerCrashes();
        for (int w = 1; w <= Scope.WRITERS; w++)
        {
            state.clearRead(w);
        }
        return state;
    }

    ModelState copy()
    {
        return new ModelState(scope, v.clone());
    }

    int replicas()
    {
        return r;
    }

    // replicas ------------------------------------------------------------------------------------

    int slot(final int replica)
    {
        return v[replica];
    }

    void slot(final int replica, final int value)
    {
        v[replica] = value;
    }

    boolean live(final int replica)
    {
        return v[r + replica] == 1;
    }

    /** A crashed replica's memory is gone: clearing it keeps states that differ only there from counting twice. */
    void crash(final int replica)
    {
        v[r + replica] = 0;
        v[replica] = 0;
        v[2 * r + replica] = 0;
        v[3 * r]--;
    }

    boolean holdsBlock(final int replica, final int value)
    {
        return (v[2 * r + replica] & (1 << value)) != 0;
    }

    void writeBlock(final int replica, final int value)
    {
        v[2 * r + replica] |= 1 << value;
    }

    int replicaCrashesLeft()
    {
        return v[3 * r];
    }

    int liveCount()
    {
        int live = 0;
        for (int i = 0; i < r; i++)
        {
            live += live(i) ? 1 : 0;
        }
        return live;
    }

    /** @return the first live replica in placement order: the chain's head, which readers read. */
    int head()
    {
        for (int i = 0; i < r; i++)
        {
            if (live(i))
            {
                return i;
            }
        }
        throw new IllegalStateException("no live replica");
    }

    /** @return the last live replica in placement order: the chain's tail, where racing writers are settled. */
    int tail()
    {
        return liveBelow(r);
    }

    /** @return the last live replica before {@code replica} in placement order, or -1. */
    int liveBelow(final int replica)
    {
        for (int i = replica - 1; i >= 0; i--)
        {
            if (live(i))
            {
                return i;
            }
        }
        return -1;
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

    boolean crashed(final int writer)
    {
        return v[w(writer, CRASHED)] == 1;
    }

    int writerCrashesLeft()
    {
        return v[3 * r + 1];
    }

    /**
     * @param lateCas the CAS it had posted when it stopped, {replica, expected, desired, 1 when it is for the
     *                tail}, which may still land later; or null.
     */
    void crashWriter(final int writer, final int[] lateCas)
    {
        v[w(writer, CRASHED)] = 1;
        v[3 * r + 1]--;
        finish(writer);
        if (lateCas != null)
        {
            v[w(writer, LATE_REPLICA)] = lateCas[0] + 1;
            v[w(writer, LATE_EXPECTED)] = lateCas[1];
            v[w(writer, LATE_DESIRED)] = lateCas[2];
            v[w(writer, LATE_WINS_TAIL)] = lateCas[3];
        }
    }

    /** @return the replica a crashed writer's late CAS goes to, or -1 when it has none (left). */
    int lateReplica(final int writer)
    {
        return v[w(writer, LATE_REPLICA)] - 1;
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

    void lateCasLanded(final int writer)
    {
        v[w(writer, LATE_WINS_TAIL)] = 0;
        v[w(writer, LATE_REPLICA)] = 0;
        v[w(writer, LATE_EXPECTED)] = 0;
        v[w(writer, LATE_DESIRED)] = 0;
    }

    /** @return the order in which the writer's value won the tail (1 first), or 0: never; 0 for the initial value. */
    int winOrder(final int value)
    {
        return value == 0 ? 0 : v[w(value, WIN_ORDER)];
    }

    void wonTail(final int writer)
    {
        v[w(writer, WIN_ORDER)] = ++v[3 * r + 2];
    }

    /** @return the replica whose slot the writer won as the tail in its current attempt. */
    int tailWon(final int writer)
    {
        return v[w(writer, TAIL_WON)];
    }

    void tailWon(final int writer, final int replica)
    {
        v[w(writer, TAIL_WON)] = replica;
    }

    int read(final int writer, final int replica)
    {
        return v[w(writer, READ) + replica];
    }

    void read(final int writer, final int replica, final int value)
    {
        v[w(writer, READ) + replica] = value;
    }

    void clearRead(final int writer)
    {
        for (int i = 0; i < r; i++)
        {
            v[w(writer, READ) + i] = UNREAD;
        }
    }

    /** A writer that is done keeps only what the history and the invariants need. */
    void finish(final int writer)
    {
        pc(writer, DONE, 0);
        attempts(writer, 0);
        tailWon(writer, 0);
        clearRead(writer);
    }

    // the reader ----------------------------------------------------------------------------------

    boolean readerInvoked()
    {
        return v[readerBase] == 1;
    }

    int readsMade()
    {
        return v[readerBase + 1];
    }

    void readerInvoked(final boolean invoked)
    {
        v[readerBase] = invoked ? 1 : 0;
    }

    void readMade()
    {
        v[readerBase + 1]++;
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

    String replicasToString()
    {
        final StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < r; i++)
        {
            out.append(i == 0 ? "" : " ").append(live(i) ? String.valueOf(slot(i)) : "x");
        }
        return out.append(']').toString();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ModelState s && Arrays.equals(s.v, v);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(v);
    }
}
