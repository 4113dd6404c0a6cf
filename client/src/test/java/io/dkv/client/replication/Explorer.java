package io.dkv.client.replication;

import java.util.ArrayDeque;
import java.util.ArrayList;
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
    private final List<String> discoveredBy = new ArrayList<>();
    private final List<Integer> parent = new ArrayList<>();
    private final List<S> states = new ArrayList<>();
    private final List<Integer> terminals = new ArrayList<>();
    private final Map<History, Boolean> linearizable = new HashMap<>();
    private final Set<History> completeHistories = new HashSet<>();
    private final Deque<String> path = new ArrayDeque<>();
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
        parent.add(from);
        discoveredBy.add(label);
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
            path.addLast(step.label() + "  " + model.describe(step.next()));
            next[i] = visit(step.next(), id, path.peekLast());
            path.removeLast();
        }
        successors.set(id, next);
    }

    private void everyRunCanFinish()
    {
        final List<List<Integer>> predecessors = new ArrayList<>();
        for (int id = 0; id < states.size(); id++)
        {
            predecessors.add(new ArrayList<>());
        }
        for (int id = 0; id < states.size(); id++)
        {
            for (final int next : successors.get(id))
            {
                predecessors.get(next).add(id);
            }
        }
        final boolean[] canFinish = new boolean[states.size()];
        final Deque<Integer> work = new ArrayDeque<>(terminals);
        terminals.forEach(id -> canFinish[id] = true);
        while (!work.isEmpty())
        {
            for (final int before : predecessors.get(work.removeFirst()))
            {
                if (!canFinish[before])
                {
                    canFinish[before] = true;
                    work.addLast(before);
                }
            }
        }
        for (int id = 0; id < states.size(); id++)
        {
            if (!canFinish[id])
            {
                for (int at = id; parent.get(at) >= 0; at = parent.get(at))
                {
                    path.addFirst(discoveredBy.get(at));
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
        for (final String step : path)
        {
            out.append("\n  ").append(String.format("%2d", n++)).append(". ").append(step);
        }
        counterexample = out.append("\n  replicas at the end: ").append(model.describe(state)).toString();
    }
}
