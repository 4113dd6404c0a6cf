package io.dkv.client.txn;

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
 * Walks every interleaving of the model's steps, breadth first, visiting each distinct state once, so that the first
 * counterexample found is a shortest one. At every state it checks the history so far for strict serializability
 * (each distinct history once) and, when asked, the invariants; at every state where the run is over it checks the
 * history against the keys' values at rest (atomicity). The first violation stops the walk with the steps that led to
 * it. Then it checks that every run can still finish: from each state some sequence of steps (pushing allowed) reaches
 * one where every actor is done, so that no state leaves the clients waiting on each other for ever.
 */
final class TxnExplorer
{
    /**
     * What a walk found.
     *
     * @param scope          the scope walked.
     * @param states         distinct states visited.
     * @param finished       of those, the states where the run is over.
     * @param histories      distinct histories of finished runs.
     * @param millis         how long the walk took.
     * @param counterexample the violation and its trace, or null.
     */
    record Result(String scope, int states, int finished, int histories, long millis, String counterexample)
    {
        boolean holds()
        {
            return counterexample == null;
        }

        @Override
        public String toString()
        {
            return scope + ": " + states + " states, " + finished + " finished, " + histories +
                " distinct complete histories, " + millis + " ms" +
                (holds() ? ", no violation" : "\n" + counterexample);
        }
    }

    /** A finished run's history with the keys' values at rest: what the atomicity check reads. */
    private record AtRest(TxnHistory history, KeyInts values)
    {
    }

    /** A bound on the walk, well inside the test JVM's heap (about 300 bytes a state). */
    private static final int MAX_STATES = 5_000_000;

    private final TxnModel model;
    private final boolean checkInvariants;
    private final Map<TxnState, Integer> ids = new HashMap<>();
    private final List<TxnState> states = new ArrayList<>();
    private final Map<Object, Object> canonical = new HashMap<>();
    private final Map<TxnHistory, Boolean> serializable = new HashMap<>();
    private final Map<AtRest, Boolean> atomic = new HashMap<>();
    private final Set<TxnHistory> completeHistories = new HashSet<>();
    private int[] parent = new int[1024];
    private int[] edgeStart = new int[1024];
    private int[] edges = new int[4096];
    private int edgeCount;
    private int finished;
    private String counterexample;

    private TxnExplorer(final TxnModel model, final boolean checkInvariants)
    {
        this.model = model;
        this.checkInvariants = checkInvariants;
    }

    static Result explore(final TxnScope scope, final boolean checkInvariants)
    {
        final long start = System.nanoTime();
        final TxnExplorer explorer = new TxnExplorer(new TxnModel(scope), checkInvariants);
        explorer.walk();
        if (explorer.counterexample == null)
        {
            explorer.everyRunCanFinish();
        }
        return new Result(scope.toString(), explorer.states.size(), explorer.finished,
            explorer.completeHistories.size(), (System.nanoTime() - start) / 1_000_000, explorer.counterexample);
    }

    private void walk()
    {
        add(model.initial(), -1);
        for (int id = 0; id < states.size() && counterexample == null; id++)
        {
            if (states.size() > MAX_STATES)
            {
                counterexample = "scope too large: over " + MAX_STATES + " states; the walk stopped";
                return;
            }
            final TxnState state = states.get(id);
            edgeStart = grow(edgeStart, id + 1);
            edgeStart[id] = edgeCount;
            final String why = check(state);
            if (why != null)
            {
                fail(why, id, List.of());
                return;
            }
            for (final TxnModel.Step step : model.steps(state))
            {
                final Integer seen = ids.get(step.next());
                edges = grow(edges, edgeCount);
                edges[edgeCount++] = seen != null ? seen : add(step.next(), id);
            }
        }
        edgeStart = grow(edgeStart, states.size());
        edgeStart[states.size()] = edgeCount;
    }

    private int add(final TxnState fresh, final int from)
    {
        final TxnState state = canonical(fresh);
        final int id = states.size();
        ids.put(state, id);
        states.add(state);
        parent = grow(parent, id);
        parent[id] = from;
        return id;
    }

    /** @return why the state is a violation, or null. */
    private String check(final TxnState state)
    {
        final TxnHistory history = state.history();
        final int keys = state.store().keys();
        if (!serializable.computeIfAbsent(history, h -> StrictSerializability.holds(h, keys, null)))
        {
            return "history not strictly serializable: " + history.describe(model.scope());
        }
        if (checkInvariants)
        {
            final String why = TxnInvariants.violated(state);
            if (why != null)
            {
                return "invariant broken: " + why + "; history: " + history.describe(model.scope());
            }
        }
        if (model.finished(state))
        {
            finished++;
            completeHistories.add(history);
            final KeyInts values = TxnInvariants.atRest(state.store());
            if (!atomic.computeIfAbsent(new AtRest(history, values), r -> StrictSerializability.holds(r.history(),
                keys, r.values())))
            {
                return "not atomic: the keys at rest, " + values.show(Values::show) + ", are not what any serial " +
                    "order of the history leaves: " + history.describe(model.scope());
            }
        }
        return null;
    }

    private void everyRunCanFinish()
    {
        final int n = states.size();
        final int[] predecessorStart = new int[n + 1];
        for (int e = 0; e < edgeCount; e++)
        {
            predecessorStart[edges[e] + 1]++;
        }
        for (int id = 0; id < n; id++)
        {
            predecessorStart[id + 1] += predecessorStart[id];
        }
        final int[] fill = Arrays.copyOf(predecessorStart, n);
        final int[] predecessors = new int[edgeCount];
        for (int id = 0; id < n; id++)
        {
            for (int e = edgeStart[id]; e < edgeStart[id + 1]; e++)
            {
                predecessors[fill[edges[e]]++] = id;
            }
        }
        final boolean[] canFinish = new boolean[n];
        final Deque<Integer> work = new ArrayDeque<>();
        for (int id = 0; id < n; id++)
        {
            if (model.finished(states.get(id)))
            {
                canFinish[id] = true;
                work.addLast(id);
            }
        }
        while (!work.isEmpty())
        {
            final int id = work.removeFirst();
            for (int p = predecessorStart[id]; p < predecessorStart[id + 1]; p++)
            {
                final int before = predecessors[p];
                if (!canFinish[before])
                {
                    canFinish[before] = true;
                    work.addLast(before);
                }
            }
        }
        for (int id = 0; id < n; id++)
        {
            if (!canFinish[id])
            {
                fail("no run from here finishes: the clients wait for ever", id, stuck(id));
                return;
            }
        }
    }

    /**
     * @return the states after a doomed one, each the first successor not seen yet, up to one with no step (the
     * actors left wait for ever) or back on the way (they go round for ever).
     */
    private List<Integer> stuck(final int doomed)
    {
        final List<Integer> after = new ArrayList<>();
        final Set<Integer> seen = new HashSet<>(List.of(doomed));
        int at = doomed;
        while (true)
        {
            int next = -1;
            for (int e = edgeStart[at]; e < edgeStart[at + 1] && next < 0; e++)
            {
                next = seen.add(edges[e]) ? edges[e] : -1;
            }
            if (next < 0)
            {
                return after;
            }
            after.add(next);
            at = next;
        }
    }

    /**
     * Writes the counterexample: the steps from the start to the state, each found again from its parent, then any
     * steps after it that show how it goes wrong.
     */
    private void fail(final String why, final int id, final List<Integer> then)
    {
        final Deque<Integer> path = new ArrayDeque<>();
        for (int at = id; at >= 0; at = parent[at])
        {
            path.addFirst(at);
        }
        path.addAll(then);
        final StringBuilder out = new StringBuilder("counterexample (").append(model.scope()).append("): ")
            .append(why);
        TxnState previous = null;
        int n = 0;
        for (final int at : path)
        {
            final TxnState state = states.get(at);
            if (previous == null)
            {
                out.append("\n  start  ").append(model.describe(state));
            }
            else
            {
                out.append("\n  ").append(String.format("%2d", ++n)).append(". ").append(label(previous, state))
                    .append("\n        ").append(model.describe(state));
            }
            previous = state;
        }
        final TxnState last = states.get(path.peekLast());
        if (!then.isEmpty() || why.startsWith("no run"))
        {
            out.append("\n  not done, for ever: ").append(waiting(last));
        }
        counterexample = out.append("\n  history: ").append(last.history().describe(model.scope())).toString();
    }

    private String waiting(final TxnState state)
    {
        final StringBuilder out = new StringBuilder();
        for (int actor = 0; actor < state.actors().size(); actor++)
        {
            if (!(state.actor(actor) instanceof Actor.Stopped))
            {
                out.append(out.isEmpty() ? "" : ", ").append(model.scope().actorName(actor));
            }
        }
        return out.isEmpty() ? "nobody" : out.toString();
    }

    private String label(final TxnState from, final TxnState to)
    {
        for (final TxnModel.Step step : model.steps(from))
        {
            if (step.next().equals(to))
            {
                return step.label();
            }
        }
        throw new IllegalStateException("no step leads from a state to its successor");
    }

    /**
     * @return the state made of the one stored copy of each of its parts: states share the parts they have in common
     * (far fewer stores, actors and histories than states), which keeps the walk's memory small.
     */
    private TxnState canonical(final TxnState state)
    {
        final List<Slot> slots = new ArrayList<>();
        state.store().slots().forEach(slot -> slots.add(intern(slot)));
        final List<Actor> actors = new ArrayList<>();
        state.actors().forEach(actor -> actors.add(intern(actor)));
        final List<Op> ops = new ArrayList<>();
        state.history().ops().forEach(op -> ops.add(intern(op)));
        return new TxnState(intern(new Store(List.copyOf(slots))), intern(List.copyOf(actors)),
            state.crashesLeft(), state.unknownsLeft(), intern(state.ghost()),
            intern(new TxnHistory(intern(List.copyOf(ops)), state.history().precedence())));
    }

    @SuppressWarnings("unchecked")
    private <T> T intern(final T part)
    {
        return (T)canonical.computeIfAbsent(part, p -> p);
    }

    private static int[] grow(final int[] array, final int index)
    {
        return index < array.length ? array : Arrays.copyOf(array, Math.max(index + 1, array.length * 2));
    }
}
