package io.dkv.client.replication;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Walks every interleaving of a model's steps, depth first, visiting each distinct state once. At every state it
 * checks the history so far for linearizability (each distinct history once) and, when asked, the invariants; the
 * first violation stops the walk with the steps that led to it. Then, as retries and waits make cycles, it checks
 * that every run can still finish: from each state some sequence of steps reaches one where no client has a step
 * left (no state from which the clients only wait on each other for ever).
 */
final class Explorer<S>
{
    record Result(String scope, long states, long terminalStates, int histories, String counterexample)
    {
        boolean holds()
        {
            return counterexample == null;
        }

        @Override
        public String toString()
        {
            return scope + ": " + states + " states, " + terminalStates + " terminal, " + histories +
                " distinct complete histories" + (holds() ? ", no violation" : "\n" + counterexample);
        }
    }

    private final Model<S> model;
    private final boolean checkInvariants;
    private final Map<S, Integer> visited = new HashMap<>();
    private final List<int[]> successors = new ArrayList<>();
    /**
     * Per state, the label of the step that found it (one string per distinct label) and the state it was found
     * from: millions of states are kept, so a step's description is made only for a counterexample.
     */
    private final List<String> discoveredBy = new ArrayList<>();
    private final Map<String, String> labels = new HashMap<>();
    private int[] parent = new int[1024];
    private final List<S> states = new ArrayList<>();
    private final List<Integer> terminals = new ArrayList<>();
    private final Map<History, Boolean> linearizable = new HashMap<>();
    private final Set<History> completeHistories = new HashSet<>();
    /** The ids of the states on the walk's path from the start, the start's left out. */
    private final Deque<Integer> path = new ArrayDeque<>();
    private long terminalStates;
    private String counterexample;

    private Explorer(final Model<S> model, final boolean checkInvariants)
    {
        this.model = model;
        this.checkInvariants = checkInvariants;
    }

    static Result explore(final Scope scope, final boolean checkInvariants)
    {
        return explore(new ChainModel(scope), checkInvariants);
    }

    static <S> Result explore(final Model<S> model, final boolean checkInvariants)
    {
        final Explorer<S> explorer = new Explorer<>(model, checkInvariants);
        explorer.visit(model.initial(), -1, "start");
        if (explorer.counterexample == null)
        {
            explorer.everyRunCanFinish();
        }
        return new Result(model.name(), explorer.visited.size(), explorer.terminalStates,
            explorer.completeHistories.size(), explorer.counterexample);
    }

    /** @return the state's number. */
    private int visit(final S state, final int from, final String label)
    {
        final Integer seen = visited.get(state);
        if (seen != null)
        {
            return seen;
        }
        final int id = states.size();
        visited.put(state, id);
        states.add(state);
        if (id == parent.length)
        {
            parent = Arrays.copyOf(parent, 2 * id);
        }
        parent[id] = from;
        discoveredBy.add(labels.computeIfAbsent(label, l -> l));
        successors.add(new int[0]);
        if (counterexample == null)
        {
            expand(state, id);
        }
        return id;
    }

    private void expand(final S state, final int id)
    {
        final List<Model.Step<S>> steps = model.steps(state);
        final History history = model.history(state);
        if (!linearizable.computeIfAbsent(history, LinearizabilityChecker::isLinearizable))
        {
            fail("history not linearizable: " + history, state);
            return;
        }
        final String why = checkInvariants ? model.violated(state, steps.isEmpty()) : null;
        if (why != null)
        {
            fail("invariant broken: " + why + "; history: " + history, state);
            return;
        }
        if (steps.isEmpty())
        {
            terminalStates++;
            terminals.add(id);
            completeHistories.add(history);
            return;
        }
        final int[] next = new int[steps.size()];
        for (int i = 0; i < next.length; i++)
        {
            final Model.Step<S> step = steps.get(i);
            final Integer seen = visited.get(step.next());
            if (seen != null)
            {
                next[i] = seen;
                continue;
            }
            path.addLast(states.size());
            next[i] = visit(step.next(), id, step.label());
            path.removeLast();
        }
        successors.set(id, next);
    }

    private void everyRunCanFinish()
    {
        // the predecessors of each state in two flat arrays: state id's are at [first[id], first[id + 1])
        final int count = states.size();
        final int[] first = new int[count + 1];
        for (int id = 0; id < count; id++)
        {
            for (final int next : successors.get(id))
            {
                first[next + 1]++;
            }
        }
        for (int id = 0; id < count; id++)
        {
            first[id + 1] += first[id];
        }
        final int[] predecessors = new int[first[count]];
        final int[] filled = Arrays.copyOf(first, count);
        for (int id = 0; id < count; id++)
        {
            for (final int next : successors.get(id))
            {
                predecessors[filled[next]++] = id;
            }
        }
        final boolean[] canFinish = new boolean[count];
        final Deque<Integer> work = new ArrayDeque<>(terminals);
        terminals.forEach(id -> canFinish[id] = true);
        while (!work.isEmpty())
        {
            final int after = work.removeFirst();
            for (int p = first[after]; p < first[after + 1]; p++)
            {
                final int before = predecessors[p];
                if (!canFinish[before])
                {
                    canFinish[before] = true;
                    work.addLast(before);
                }
            }
        }
        for (int id = 0; id < count; id++)
        {
            if (!canFinish[id])
            {
                for (int at = id; parent[at] >= 0; at = parent[at])
                {
                    path.addFirst(at);
                }
                fail("no run from here finishes: the clients wait for ever", states.get(id));
                return;
            }
        }
    }

    private void fail(final String why, final S state)
    {
        final StringBuilder out = new StringBuilder("counterexample (").append(model.name()).append("): ")
            .append(why);
        out.append("\n  start  ").append(model.describe(model.initial()));
        int n = 1;
        for (final int step : path)
        {
            out.append("\n  ").append(String.format("%2d", n++)).append(". ").append(discoveredBy.get(step))
                .append("  ").append(model.describe(states.get(step)));
        }
        counterexample = out.append("\n  replicas at the end: ").append(model.describe(state)).toString();
    }
}
