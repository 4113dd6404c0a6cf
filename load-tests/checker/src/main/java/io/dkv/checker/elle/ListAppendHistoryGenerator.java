package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Generates valid list-append histories: a simulated strictly serializable store on which concurrent processes
 * run transactions. Each transaction takes effect atomically at a point inside its interval, against real lists;
 * intervals of different processes overlap.
 *
 * <p>Appended elements count up per key, so they are unique. Some transactions fail (no effect) and some end in
 * info: those took effect or not at random, and their process is retired for a new one. Everything follows from
 * the seed.
 */
public final class ListAppendHistoryGenerator
{
    private static final String ABORTED = "aborted";
    private static final String TIMED_OUT = "timed out";
    private static final int MAX_STEP_NANOS = 1_000;
    private static final int MAX_THINK_NANOS = 200;

    private long seed = 1;
    private int transactions = 1_000;
    private int keys = 10;
    private int processes = 5;
    private int maxMicroOps = 4;
    private double appendFraction = 0.5;
    private double failFraction = 0.02;
    private double infoFraction = 0.02;

    /**
     * @param seed       the seed of everything random.
     * @param operations the number of transactions.
     * @param keys       the number of keys they touch, chosen uniformly.
     * @param processes  the number running at once.
     * @return a valid history of that many transactions, with the default mix (see the setters).
     */
    public static History generate(final long seed, final int operations, final int keys, final int processes)
    {
        return new ListAppendHistoryGenerator().seed(seed).transactions(operations).keys(keys).processes(processes)
            .generate();
    }

    public ListAppendHistoryGenerator seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    public ListAppendHistoryGenerator transactions(final int transactions)
    {
        this.transactions = requirePositive("transactions", transactions);
        return this;
    }

    public ListAppendHistoryGenerator keys(final int keys)
    {
        this.keys = requirePositive("keys", keys);
        return this;
    }

    public ListAppendHistoryGenerator processes(final int processes)
    {
        this.processes = requirePositive("processes", processes);
        return this;
    }

    /** @param maxMicroOps each transaction has 1 to this many micro-operations (default 4). */
    public ListAppendHistoryGenerator maxMicroOps(final int maxMicroOps)
    {
        this.maxMicroOps = requirePositive("maxMicroOps", maxMicroOps);
        return this;
    }

    /** @param appendFraction the share of micro-operations that append; the others read (default 0.5). */
    public ListAppendHistoryGenerator appendFraction(final double appendFraction)
    {
        this.appendFraction = requireFraction("appendFraction", appendFraction);
        return this;
    }

    /** @param failFraction the share of transactions that fail, taking no effect (default 0.02). */
    public ListAppendHistoryGenerator failFraction(final double failFraction)
    {
        this.failFraction = requireFraction("failFraction", failFraction);
        return this;
    }

    /** @param infoFraction the share of transactions whose outcome is unknown (default 0.02); half take effect. */
    public ListAppendHistoryGenerator infoFraction(final double infoFraction)
    {
        this.infoFraction = requireFraction("infoFraction", infoFraction);
        return this;
    }

    public History generate()
    {
        if (failFraction + infoFraction > 1)
        {
            throw new IllegalArgumentException("failFraction " + failFraction + " and infoFraction " + infoFraction +
                " add up to more than 1");
        }
        return new Simulation().run();
    }

    private static int requirePositive(final String name, final int value)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(name + " must be 1 or more: " + value);
        }
        return value;
    }

    private static double requireFraction(final String name, final double value)
    {
        if (!(value >= 0 && value <= 1))
        {
            throw new IllegalArgumentException(name + " must be between 0 and 1: " + value);
        }
        return value;
    }

    /** What a process slot does next, and when. */
    private enum Step
    {
        INVOKE, EXECUTE, COMPLETE
    }

    /** A slot runs one process's transactions one after another; a process retired after info is replaced. */
    private static final class Slot
    {
        private int process;
        private Step step = Step.INVOKE;
        private long time;
        private long sequence;
        private int[] keys;
        private List<Object> invocation;
        private List<Object> completion;
        private OpType outcome;
        private boolean takesEffect;
    }

    private final class Simulation
    {
        private final Random random = new Random(seed);
        private final List<Op> events = new ArrayList<>(transactions * 2);
        private final List<List<Long>> lists = new ArrayList<>(keys);
        private final String[] keyNames = new String[keys];
        private final long[] nextElement = new long[keys];
        private final PriorityQueue<Slot> agenda = new PriorityQueue<>((left, right) -> left.time != right.time ?
            Long.compare(left.time, right.time) : Long.compare(left.sequence, right.sequence));
        private long sequence;
        private int invoked;
        private int nextProcess;

        Simulation()
        {
            Arrays.fill(nextElement, 1);
            for (int key = 0; key < keys; key++)
            {
                lists.add(null);
                keyNames[key] = "k" + key;
            }
        }

        History run()
        {
            for (int i = 0; i < processes; i++)
            {
                final Slot slot = new Slot();
                slot.process = nextProcess++;
                schedule(slot, Step.INVOKE, random.nextInt(MAX_THINK_NANOS));
            }
            while (!agenda.isEmpty())
            {
                final Slot slot = agenda.poll();
                switch (slot.step)
                {
                    case INVOKE -> invoke(slot);
                    case EXECUTE -> execute(slot);
                    case COMPLETE -> complete(slot);
                }
            }
            return History.of(events);
        }

        private void schedule(final Slot slot, final Step step, final long time)
        {
            slot.step = step;
            slot.time = time;
            slot.sequence = sequence++;
            agenda.add(slot);
        }

        private void invoke(final Slot slot)
        {
            if (invoked == transactions)
            {
                return;
            }
            invoked++;
            final int microOps = 1 + random.nextInt(maxMicroOps);
            slot.keys = new int[microOps];
            slot.invocation = new ArrayList<>(microOps);
            for (int i = 0; i < microOps; i++)
            {
                final int key = random.nextInt(keys);
                slot.keys[i] = key;
                slot.invocation.add(random.nextDouble() < appendFraction ?
                    List.of(Op.APPEND, keyNames[key], nextElement[key]++) :
                    Arrays.asList(Op.READ_LIST, keyNames[key], null));
            }
            final double outcome = random.nextDouble();
            slot.outcome =
                outcome < failFraction ? OpType.FAIL : outcome < failFraction + infoFraction ? OpType.INFO : OpType.OK;
            slot.takesEffect = slot.outcome == OpType.OK || (slot.outcome == OpType.INFO && random.nextBoolean());
            events.add(new Op(0, OpType.INVOKE, slot.process, Op.TXN, null, slot.invocation, slot.time, null));
            if (slot.takesEffect)
            {
                schedule(slot, Step.EXECUTE, slot.time + 1 + random.nextInt(MAX_STEP_NANOS));
            }
            else
            {
                schedule(slot, Step.COMPLETE, slot.time + 1 + random.nextInt(MAX_STEP_NANOS));
            }
        }

        /** The transaction's moment of effect: all its micro-operations at once. */
        private void execute(final Slot slot)
        {
            slot.completion = new ArrayList<>(slot.invocation.size());
            for (int i = 0; i < slot.keys.length; i++)
            {
                final List<?> parts = (List<?>)slot.invocation.get(i);
                final int key = slot.keys[i];
                if (Op.APPEND.equals(parts.get(0)))
                {
                    if (lists.get(key) == null)
                    {
                        lists.set(key, new ArrayList<>());
                    }
                    lists.get(key).add((Long)parts.get(2));
                    slot.completion.add(parts);
                }
                else
                {
                    final List<Long> list = lists.get(key);
                    slot.completion.add(Arrays.asList(Op.READ_LIST, keyNames[key],
                        list == null ? null : List.copyOf(list)));
                }
            }
            schedule(slot, Step.COMPLETE, slot.time + 1 + random.nextInt(MAX_STEP_NANOS));
        }

        private void complete(final Slot slot)
        {
            final Object value = slot.outcome == OpType.OK ? slot.completion : slot.invocation;
            final String error = switch (slot.outcome)
            {
                case FAIL -> ABORTED;
                case INFO -> TIMED_OUT;
                default -> null;
            };
            events.add(new Op(0, slot.outcome, slot.process, Op.TXN, null, value, slot.time, error));
            if (slot.outcome == OpType.INFO)
            {
                slot.process = nextProcess++;
            }
            slot.invocation = null;
            slot.completion = null;
            schedule(slot, Step.INVOKE, slot.time + random.nextInt(MAX_THINK_NANOS));
        }
    }
}
