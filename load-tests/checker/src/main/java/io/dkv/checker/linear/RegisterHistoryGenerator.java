package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Generates histories of a linearizable map of registers, for tests and benchmarks.
 *
 * <p>A simulation: each process invokes an operation on a random key, waits a random time and completes it, then
 * soon invokes the next; the operation takes effect on a real map at a random point strictly inside its interval,
 * in time order, so reads return what the map holds then and a cas succeeds exactly when the map holds its
 * expected value (chosen as the value at its invocation, now and then another). Some operations end in info
 * (and a few never complete): they took effect or not at random, possibly after their info, and their process is
 * retired for a new one. The effects in time order are a linearization, so every generated history is valid;
 * {@link #generateCorrupted} spoils one read on request.
 */
public final class RegisterHistoryGenerator
{
    /** How to make a generated history invalid. */
    public enum Corruption
    {
        /** One ok read returns a value nothing ever wrote to its key. */
        NEVER_WRITTEN_READ,
        /**
         * One ok read returns the value of a write that another completed write followed before the read was invoked,
         * a value no other operation writes. Needs unique values ({@code valueRange(0)}) to find such a read.
         */
        STALE_READ
    }

    /**
     * A history made invalid on purpose.
     *
     * @param history   the history.
     * @param corrupted the operation whose result was spoiled.
     */
    public record CorruptedHistory(History history, Operation corrupted)
    {
    }

    private static final double EXPECTED_IS_CURRENT = 0.75;
    private static final double INFO_NEVER_COMPLETES = 0.25;

    private final long seed;
    private final int operations;
    private final int keys;
    private final int processes;
    private final double readWeight;
    private final double writeWeight;
    private final double casWeight;
    private final double infoFraction;
    private final double deleteFraction;
    private final int valueRange;
    private final int maxDuration;
    private final int maxGap;

    private RegisterHistoryGenerator(final Builder builder)
    {
        this.seed = builder.seed;
        this.operations = builder.operations;
        this.keys = builder.keys;
        this.processes = builder.processes;
        this.readWeight = builder.readWeight;
        this.writeWeight = builder.writeWeight;
        this.casWeight = builder.casWeight;
        this.infoFraction = builder.infoFraction;
        this.deleteFraction = builder.deleteFraction;
        this.valueRange = builder.valueRange;
        this.maxDuration = builder.maxDuration;
        this.maxGap = builder.maxGap;
    }

    /** @return a valid history with the builder's defaults for everything else. */
    public static History generate(final long seed, final int operations, final int keys, final int processes)
    {
        return builder().seed(seed).operations(operations).keys(keys).processes(processes).build().generate();
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a valid history; the same for the same parameters. */
    public History generate()
    {
        return History.of(simulate().events);
    }

    /**
     * @return a history that is not linearizable, with the operation spoiled.
     * @throws IllegalStateException when no read of the history can be spoiled that way.
     */
    public CorruptedHistory generateCorrupted(final Corruption corruption)
    {
        final Simulation simulation = simulate();
        final Random random = new Random(seed ^ 0x5DEE_CE66_DL);
        final List<Op> events = new ArrayList<>(simulation.events);
        final int position;
        final Long spoiled;
        if (corruption == Corruption.NEVER_WRITTEN_READ)
        {
            if (simulation.okReadCompletions.isEmpty())
            {
                throw new IllegalStateException("no ok read to spoil among " + operations + " operations");
            }
            position = simulation.okReadCompletions.get(random.nextInt(simulation.okReadCompletions.size()));
            // generated values are never negative
            spoiled = -1L - random.nextInt(1000);
        }
        else
        {
            final long[] stale = staleRead(History.of(events), random);
            position = (int) stale[0];
            spoiled = stale[1];
        }
        final Op read = events.get(position);
        events.set(position,
            new Op(read.index(), read.type(), read.process(), read.f(), read.key(), spoiled, read.time(),
            read.error()));
        final History history = History.of(events);
        for (final Operation operation : history.operations())
        {
            if (operation.completion() != null && operation.completion().index() == position)
            {
                return new CorruptedHistory(history, operation);
            }
        }
        throw new IllegalStateException("the spoiled read at event " + position + " is not in the history");
    }

    /** @return the event position of an ok read's completion and a stale value for it. */
    private static long[] staleRead(final History history, final Random random)
    {
        final List<List<Operation>> keyHistories = new ArrayList<>(history.byKey().values());
        Collections.shuffle(keyHistories, random);
        for (final List<Operation> keyHistory : keyHistories)
        {
            final Map<Long, Integer> producers = new HashMap<>();
            final List<Operation> okWrites = new ArrayList<>();
            for (final Operation operation : keyHistory)
            {
                if (Op.WRITE.equals(operation.f()))
                {
                    producers.merge(RegisterValues.written(operation), 1, Integer::sum);
                    if (operation.isOk())
                    {
                        okWrites.add(operation);
                    }
                }
                else if (Op.CAS.equals(operation.f()))
                {
                    producers.merge(RegisterValues.casNew(operation), 1, Integer::sum);
                }
            }
            for (final Operation read : keyHistory)
            {
                if (Op.READ.equals(read.f()) && read.isOk())
                {
                    final Long stale = staleValue(read, okWrites, producers);
                    if (stale != null)
                    {
                        return new long[]{read.completion().index(), stale};
                    }
                }
            }
        }
        throw new IllegalStateException("no read can be made stale: none follows two writes in real time, the first " +
            "of a value nothing else writes; generate with unique values (valueRange 0) and more operations per key");
    }

    /**
     * @return the value of a write that completed before another write was invoked, which completed before the
     * read was invoked, when no other operation writes that value; null when there is none.
     */
    private static Long staleValue(final Operation read, final List<Operation> okWrites,
        final Map<Long, Integer> producers)
    {
        Operation overwrite = null;
        for (final Operation write : okWrites)
        {
            if (write.completion().index() < read.invoke().index() &&
                (overwrite == null || write.completion().index() > overwrite.completion().index()))
            {
                overwrite = write;
            }
        }
        if (overwrite == null)
        {
            return null;
        }
        for (final Operation write : okWrites)
        {
            final Long value = RegisterValues.written(write);
            if (write.completion().index() < overwrite.invoke().index() && value != null &&
                producers.get(value) == 1 && !value.equals(RegisterValues.written(overwrite)) &&
                !value.equals(RegisterValues.read(read)))
            {
                return value;
            }
        }
        return null;
    }

    private Simulation simulate()
    {
        final Simulation simulation = new Simulation(new Random(seed));
        simulation.run();
        return simulation;
    }

    /** The processes' operations as events in time order, taking effect on a real map. */
    private final class Simulation
    {
        private final Random random;
        private final List<Op> events = new ArrayList<>(operations * 2);
        private final List<Integer> okReadCompletions = new ArrayList<>();
        private final Map<String, Long> store = new HashMap<>();
        private final PriorityQueue<Step> steps = new PriorityQueue<>();
        private final int[] processOfSlot = new int[processes];
        private int nextProcess;
        private int invoked;
        private long nextUniqueValue = 1;
        private long nextSequence;

        Simulation(final Random random)
        {
            this.random = random;
        }

        void run()
        {
            for (int slot = 0; slot < processes; slot++)
            {
                processOfSlot[slot] = nextProcess++;
                schedule(StepKind.INVOKE, 1 + random.nextInt(maxGap), slot, null);
            }
            Step step;
            while ((step = steps.poll()) != null)
            {
                switch (step.kind)
                {
                    case INVOKE -> invoke(step.time, step.slot);
                    case EFFECT -> takeEffect(step.operation);
                    case COMPLETE -> complete(step.time, step.slot, step.operation);
                }
            }
        }

        private void invoke(final long time, final int slot)
        {
            if (invoked == operations)
            {
                return;
            }
            invoked++;
            final Planned planned = new Planned("k" + random.nextInt(keys), function());
            planned.process = processOfSlot[slot];
            switch (planned.f)
            {
                case Op.WRITE -> planned.written = random.nextDouble() < deleteFraction ? null : newValue();
                case Op.CAS ->
                {
                    planned.expected = random.nextDouble() < EXPECTED_IS_CURRENT ? store.get(planned.key) : anyValue();
                    planned.written = newValue();
                }
                default ->
                {
                }
            }
            planned.info = random.nextDouble() < infoFraction;
            final long duration = 2 + random.nextInt(Math.max(1, maxDuration - 1));
            events.add(new Op(0, OpType.INVOKE, planned.process, planned.f, planned.key, planned.invokeValue(), time,
                null));
            if (!planned.info)
            {
                schedule(StepKind.EFFECT, time + 1 + random.nextLong(duration - 1), slot, planned);
            }
            else if (random.nextBoolean())
            {
                // an indeterminate operation may take effect at any time after its invocation, even after its info
                schedule(StepKind.EFFECT, time + 1 + random.nextLong(3 * duration), slot, planned);
            }
            schedule(StepKind.COMPLETE, time + duration, slot, planned);
        }

        private void takeEffect(final Planned planned)
        {
            final Long current = store.get(planned.key);
            switch (planned.f)
            {
                case Op.READ -> planned.read = current;
                case Op.WRITE -> put(planned.key, planned.written);
                default ->
                {
                    planned.casTookEffect = Objects.equals(current, planned.expected);
                    if (planned.casTookEffect)
                    {
                        put(planned.key, planned.written);
                    }
                }
            }
        }

        private void complete(final long time, final int slot, final Planned planned)
        {
            if (planned.info)
            {
                if (random.nextDouble() >= INFO_NEVER_COMPLETES)
                {
                    events.add(new Op(0, OpType.INFO, planned.process, planned.f, planned.key, planned.invokeValue(),
                        time,
                        "timeout"));
                }
                processOfSlot[slot] = nextProcess++;
            }
            else if (Op.READ.equals(planned.f))
            {
                okReadCompletions.add(events.size());
                events.add(new Op(0, OpType.OK, planned.process, planned.f, planned.key, planned.read, time, null));
            }
            else if (Op.CAS.equals(planned.f) && !planned.casTookEffect)
            {
                events.add(new Op(0, OpType.FAIL, planned.process, planned.f, planned.key, planned.invokeValue(), time,
                    "the register did not hold " + OperationText.value(planned.expected)));
            }
            else
            {
                events.add(new Op(0, OpType.OK, planned.process, planned.f, planned.key, planned.invokeValue(), time,
                    null));
            }
            schedule(StepKind.INVOKE, time + 1 + random.nextInt(maxGap), slot, null);
        }

        private String function()
        {
            final double pick = random.nextDouble() * (readWeight + writeWeight + casWeight);
            return pick < readWeight ? Op.READ : pick < readWeight + writeWeight ? Op.WRITE : Op.CAS;
        }

        private Long newValue()
        {
            return valueRange == 0 ? nextUniqueValue++ : (long) random.nextInt(valueRange);
        }

        private Long anyValue()
        {
            if (valueRange == 0)
            {
                return nextUniqueValue > 1 ? 1 + random.nextLong(nextUniqueValue - 1) : null;
            }
            return (long) random.nextInt(valueRange);
        }

        private void put(final String key, final Long value)
        {
            if (value == null)
            {
                store.remove(key);
            }
            else
            {
                store.put(key, value);
            }
        }

        private void schedule(final StepKind kind, final long time, final int slot, final Planned planned)
        {
            steps.add(new Step(time, nextSequence++, kind, slot, planned));
        }
    }

    private enum StepKind
    {
        INVOKE, EFFECT, COMPLETE
    }

    /** A step of the simulation; steps at the same time run in the order they were scheduled. */
    private record Step(long time, long sequence, StepKind kind, int slot,
        Planned operation) implements Comparable<Step>
    {
        public int compareTo(final Step other)
        {
            final int byTime = Long.compare(time, other.time);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /** An operation under way in the simulation. */
    private static final class Planned
    {
        private final String key;
        private final String f;
        private int process;
        private boolean info;
        private Long expected;
        private Long written;
        private Long read;
        private boolean casTookEffect;

        Planned(final String key, final String f)
        {
            this.key = key;
            this.f = f;
        }

        Object invokeValue()
        {
            return switch (f)
            {
                case Op.READ -> null;
                case Op.WRITE -> written;
                default -> Arrays.asList(expected, written);
            };
        }
    }

    /** The parameters of a generator; each has a default. */
    public static final class Builder
    {
        private long seed;
        private int operations = 1_000;
        private int keys = 10;
        private int processes = 5;
        private double readWeight = 0.5;
        private double writeWeight = 0.3;
        private double casWeight = 0.2;
        private double infoFraction = 0.02;
        private double deleteFraction = 0.05;
        private int valueRange = 5;
        private int maxDuration = 1_000;
        private int maxGap = 200;

        private Builder()
        {
        }

        public Builder seed(final long seed)
        {
            this.seed = seed;
            return this;
        }

        /** @param operations how many operations are invoked in all. */
        public Builder operations(final int operations)
        {
            this.operations = requireAtLeast(operations, 0, "operations");
            return this;
        }

        public Builder keys(final int keys)
        {
            this.keys = requireAtLeast(keys, 1, "keys");
            return this;
        }

        /** @param processes how many operations are under way at a time, at most. */
        public Builder processes(final int processes)
        {
            this.processes = requireAtLeast(processes, 1, "processes");
            return this;
        }

        /** Relative weights of the functions. */
        public Builder mix(final double read, final double write, final double cas)
        {
            if (read < 0 || write < 0 || cas < 0 || read + write + cas <= 0)
            {
                throw new IllegalArgumentException("weights read " + read + ", write " + write + ", cas " + cas +
                    " must not be negative nor all zero");
            }
            this.readWeight = read;
            this.writeWeight = write;
            this.casWeight = cas;
            return this;
        }

        /** @param fraction of the operations that end in info (or never complete). */
        public Builder infoFraction(final double fraction)
        {
            this.infoFraction = requireFraction(fraction, "info fraction");
            return this;
        }

        /** @param fraction of the writes that write null, deleting the key. */
        public Builder deleteFraction(final double fraction)
        {
            this.deleteFraction = requireFraction(fraction, "delete fraction");
            return this;
        }

        /** @param range values written are drawn from 0 until range; 0 makes every value written a new one. */
        public Builder valueRange(final int range)
        {
            this.valueRange = requireAtLeast(range, 0, "value range");
            return this;
        }

        /** @param maxDuration the longest an operation takes, in simulated nanoseconds (at least 2). */
        public Builder maxDuration(final int maxDuration)
        {
            this.maxDuration = requireAtLeast(maxDuration, 2, "max duration");
            return this;
        }

        /** @param maxGap the longest a process waits between operations, in simulated nanoseconds. */
        public Builder maxGap(final int maxGap)
        {
            this.maxGap = requireAtLeast(maxGap, 1, "max gap");
            return this;
        }

        public RegisterHistoryGenerator build()
        {
            return new RegisterHistoryGenerator(this);
        }

        private static int requireAtLeast(final int value, final int least, final String name)
        {
            if (value < least)
            {
                throw new IllegalArgumentException(name + " must be at least " + least + ", not " + value);
            }
            return value;
        }

        private static double requireFraction(final double fraction, final String name)
        {
            if (!(fraction >= 0 && fraction <= 1))
            {
                throw new IllegalArgumentException(name + " must be within [0, 1], not " + fraction);
            }
            return fraction;
        }
    }
}
