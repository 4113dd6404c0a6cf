package io.dkv.memory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cleaner as designed (kv-memory-node/README.md, "The cleaner (design; not built yet)") explored exhaustively in
 * small scopes: one key's index slot, whose word names an immutable block (and may carry a seal), beside the actors
 * that meet a move. A blind writer and a deleter read the word, write a block and swap it in by CAS, trying once more
 * on a lost CAS; a compare-and-set by version reads the word and its block's write id and, its CAS lost, fails only if
 * the write id changed; a reader reads the word, then the block; a membership change seals the word by CAS and its
 * fill clears the seal by CAS as {@code ReplicaCopier.clearSeals} does, taking a lost CAS for a write that put none;
 * and a reclaimer frees the chunk of any block that no slot names once no operation in flight still holds a word
 * naming it. The cleaner reads the word, copies the block whole (same write id and value) and swaps the copy in by a
 * CAS from the exact word it copied under, keeping the seal flag; it skips sealed words (it moves tombstones, which
 * the design leaves to the expiry sweep: the model checks more than is built). Breadth first over every
 * interleaving, each state once, it checks that no reader gets garbage or a value the key did not hold during its read
 * (P1), that the slot always names a whole block of the key's latest write (P2), that a compare-and-set by version
 * fails only after a write (P3), that no seal outlives the fill (P4), and that every actor can finish.
 *
 * <p>Broken forms, each caught with a shortest trace: the CAS before the copy (the slot names a block not yet written),
 * a chunk freed without the grace (a reader in flight reads a freed block), a sealed word moved (the fill's CAS misses
 * the moved word and leaves the seal on), a compare-and-set by version that compares words (a move makes it answer
 * false though nobody wrote), and, as a check of the checker, a move that writes the slot without comparing.
 */
class RelocationModelTest
{
    private static final int EMPTY = -1;
    private static final int DONE = 0;
    private static final int WAITING = -1;
    private static final int GARBAGE = -2;
    private static final int MAX_STATES = 2_000_000;

    enum Kind
    {
        WRITER, VERSION_WRITER, DELETER, READER, CLEANER, SEALER, FILLER
    }

    enum Variant
    {
        PROTOCOL, CAS_BEFORE_COPY, NO_GRACE, MOVES_SEALED, VERSION_BY_WORD, MOVE_WITHOUT_COMPARE
    }

    /**
     * @param actors  the actors besides the reclaimer, which is always there; a filler goes with a sealer.
     * @param passes  how many times the cleaner moves the key (each pass reads the slot again).
     * @param atLeast fewest states the walk must visit, so that a scope that explores nothing cannot pass.
     */
    record Scope(List<Kind> actors, Variant variant, int passes, int atLeast)
    {
        Scope with(final Variant other)
        {
            return new Scope(actors, other, passes, 0);
        }

        @Override
        public String toString()
        {
            return actors + (passes > 1 ? " cleaning " + passes + " times" : "") + ", " + variant;
        }
    }

    /** A broken scope and the properties that may catch it. */
    record Broken(Scope scope, List<String> caughtBy)
    {
        @Override
        public String toString()
        {
            return scope + " caught by " + String.join(" or ", caughtBy);
        }
    }

    /** Never rewritten once written; garbage once its chunk was freed (its bytes may then be anything). */
    record Block(int writeId, boolean tombstone, boolean initialized, boolean garbage, boolean published)
    {
        int readable()
        {
            return garbage || !initialized ? GARBAGE : writeId;
        }
    }

    /**
     * One actor's operation: the step it takes next ({@link #DONE} when over), the word it read, the block it wrote,
     * the write id it expects (a compare-and-set by version), the history's length at its first read, its tries.
     */
    record Act(int pc, int word, int mine, int expect, int since, int tries)
    {
        static final Act OVER = new Act(DONE, EMPTY, -1, -1, -1, 0);

        static Act start(final int tries)
        {
            return new Act(1, EMPTY, -1, -1, -1, tries);
        }

        Act next(final int step, final int read, final int written)
        {
            return new Act(step, read, written, expect, since, tries);
        }
    }

    /** @param history every logical write id in order; a move is none. @param broken a violation met on a step. */
    record State(int slot, List<Block> blocks, List<Integer> history, List<Act> acts, String broken)
    {
    }

    record Step(String label, State next)
    {
    }

    /**
     * @param freed     states in which the reclaimer had freed a chunk: the grace met, not vacuous.
     * @param violation what broke and the shortest trace to it, or null.
     */
    record Result(int states, int freed, long millis, String violation)
    {
    }

    static List<Scope> protocolScopes()
    {
        return List.of(
            new Scope(List.of(Kind.WRITER, Kind.READER, Kind.CLEANER), Variant.PROTOCOL, 2, 1_000),
            new Scope(List.of(Kind.VERSION_WRITER, Kind.READER, Kind.CLEANER), Variant.PROTOCOL, 2, 800),
            new Scope(List.of(Kind.WRITER, Kind.DELETER, Kind.CLEANER, Kind.READER), Variant.PROTOCOL, 1, 8_000),
            new Scope(List.of(Kind.SEALER, Kind.FILLER, Kind.WRITER, Kind.CLEANER), Variant.PROTOCOL, 2, 3_000),
            new Scope(List.of(Kind.VERSION_WRITER, Kind.WRITER, Kind.CLEANER, Kind.READER), Variant.PROTOCOL, 1, 5_000),
            // a compare-and-set by version whose word is sealed, then moved, then unsealed under it
            new Scope(List.of(Kind.SEALER, Kind.FILLER, Kind.VERSION_WRITER, Kind.CLEANER, Kind.READER),
                Variant.PROTOCOL, 2, 10_000));
    }

    static List<Broken> brokenScopes()
    {
        final List<Scope> scopes = protocolScopes();
        return List.of(
            new Broken(scopes.get(0).with(Variant.CAS_BEFORE_COPY), List.of("P1", "P2")),
            new Broken(scopes.get(0).with(Variant.NO_GRACE), List.of("P1")),
            // the same with no writer: the move is what unlinks the block the reader holds
            new Broken(new Scope(List.of(Kind.READER, Kind.CLEANER), Variant.NO_GRACE, 1, 0), List.of("P1")),
            new Broken(scopes.get(3).with(Variant.MOVES_SEALED), List.of("P4")),
            new Broken(scopes.get(1).with(Variant.VERSION_BY_WORD), List.of("P3")),
            new Broken(scopes.get(0).with(Variant.MOVE_WITHOUT_COMPARE), List.of("P2")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocolScopes")
    void everyInterleavingKeepsThePropertiesAndCanFinish(final Scope scope)
    {
        final Result result = new Model(scope).explore();
        System.out.println(scope + ": " + result.states() + " states (" + result.freed() + " after a chunk was " +
            "freed), " + result.millis() + " ms");
        assertNull(result.violation(), result::violation);
        assertTrue(result.states() >= scope.atLeast(), "only " + result.states() + " states: " + scope);
        assertTrue(result.freed() > 0, "the reclaimer never freed a chunk: " + scope);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenScopes")
    void eachBrokenFormIsCaughtWithAShortestTrace(final Broken broken)
    {
        final Result result = new Model(broken.scope()).explore();
        System.out.println(broken.scope() + ": " + result.states() + " states, " + result.millis() + " ms\n" +
            result.violation());
        assertNotNull(result.violation(), "no counterexample in " + result.states() + " states: " + broken);
        assertTrue(broken.caughtBy().stream().anyMatch(result.violation()::startsWith),
            "caught, but not by " + broken.caughtBy() + ": " + result.violation());
    }

    /** A state being built from another, then frozen. */
    private static final class Next
    {
        private int slot;
        private final List<Block> blocks;
        private final List<Integer> history;
        private final List<Act> acts;
        private String broken;

        Next(final State state)
        {
            slot = state.slot();
            blocks = new ArrayList<>(state.blocks());
            history = new ArrayList<>(state.history());
            acts = new ArrayList<>(state.acts());
        }

        int add(final Block block)
        {
            blocks.add(block);
            return blocks.size() - 1;
        }

        /** The slot now names the word's block, a logical write of the write id unless it is a move (-1). */
        void install(final int word, final int writeId)
        {
            slot = word;
            final Block b = blocks.get(blockOf(word));
            blocks.set(blockOf(word), new Block(b.writeId(), b.tombstone(), b.initialized(), b.garbage(), true));
            if (writeId >= 0)
            {
                history.add(writeId);
            }
        }

        int writeIdAt(final int word)
        {
            return word == EMPTY ? EMPTY : blocks.get(blockOf(word)).readable();
        }

        int latest()
        {
            return history.size() - 1;
        }

        State freeze()
        {
            return new State(slot, List.copyOf(blocks), List.copyOf(history), List.copyOf(acts), broken);
        }
    }

    /** The actors' steps and the reclaimer's, and the breadth-first walk over them. */
    private static final class Model
    {
        private final Scope scope;
        private final Map<State, Integer> ids = new HashMap<>();
        private final List<State> states = new ArrayList<>();
        private final List<Integer> parents = new ArrayList<>();
        private final List<String> labels = new ArrayList<>();
        private final List<int[]> successors = new ArrayList<>();

        Model(final Scope scope)
        {
            this.scope = scope;
        }

        Result explore()
        {
            final long start = System.nanoTime();
            final List<Act> acts = new ArrayList<>();
            scope.actors().forEach(kind -> acts.add(kind == Kind.FILLER ? new Act(WAITING, EMPTY, -1, -1, -1, 0) :
                Act.start(0)));
            add(new State(name(0, false), List.of(new Block(0, false, true, false, true)), List.of(0),
                List.copyOf(acts), null), -1, "start");
            String violation = null;
            int freed = 0;
            for (int id = 0; id < states.size() && violation == null; id++)
            {
                freed += states.get(id).blocks().stream().anyMatch(Block::garbage) ? 1 : 0;
                violation = violated(states.get(id));
                if (violation != null)
                {
                    violation += trace(id);
                }
                else if (states.size() > MAX_STATES)
                {
                    violation = "scope too large: over " + MAX_STATES + " states";
                }
                else
                {
                    final List<Step> steps = steps(states.get(id));
                    final int[] next = new int[steps.size()];
                    for (int s = 0; s < next.length; s++)
                    {
                        final Integer seen = ids.get(steps.get(s).next());
                        next[s] = seen != null ? seen : add(steps.get(s).next(), id, steps.get(s).label());
                    }
                    successors.add(next);
                }
            }
            if (violation == null)
            {
                violation = stuck();
            }
            return new Result(states.size(), freed, (System.nanoTime() - start) / 1_000_000, violation);
        }

        private int add(final State state, final int parent, final String label)
        {
            ids.put(state, states.size());
            states.add(state);
            parents.add(parent);
            labels.add(label);
            return states.size() - 1;
        }

        private String violated(final State state)
        {
            if (state.broken() != null)
            {
                return state.broken();
            }
            if (state.slot() != EMPTY)
            {
                final Block named = state.blocks().get(blockOf(state.slot()));
                final int latest = state.history().getLast();
                if (named.readable() != latest)
                {
                    return "P2: the slot names " + show(state.slot()) + ", " + show(named) + ", but the key's latest" +
                        " write is w" + latest;
                }
            }
            for (int i = 0; i < state.acts().size(); i++)
            {
                if (scope.actors().get(i) == Kind.FILLER && state.acts().get(i).pc() == DONE && sealed(state.slot()))
                {
                    return "P4: the fill is over and the slot is still sealed: " + show(state.slot());
                }
            }
            return null;
        }

        /** @return a violation if some reachable state has no run on to one where every actor is done. */
        private String stuck()
        {
            final boolean[] canFinish = new boolean[states.size()];
            boolean grew = true;
            while (grew)
            {
                grew = false;
                for (int id = states.size() - 1; id >= 0; id--)
                {
                    boolean can = states.get(id).acts().stream().allMatch(act -> act.pc() == DONE);
                    for (final int next : successors.get(id))
                    {
                        can |= canFinish[next];
                    }
                    grew |= can && !canFinish[id];
                    canFinish[id] |= can;
                }
            }
            for (int id = 0; id < states.size(); id++)
            {
                if (!canFinish[id])
                {
                    return "termination: no run from here lets every actor finish" + trace(id);
                }
            }
            return null;
        }

        private String trace(final int id)
        {
            final List<Integer> path = new ArrayList<>();
            for (int at = id; at >= 0; at = parents.get(at))
            {
                path.addFirst(at);
            }
            final StringBuilder out = new StringBuilder(" (").append(scope).append("), ")
                .append(path.size() - 1).append(" steps:");
            for (int n = 0; n < path.size(); n++)
            {
                final State state = states.get(path.get(n));
                out.append(String.format("%n  %2d. %s%n      slot %s; blocks", n, labels.get(path.get(n)),
                    show(state.slot())));
                for (int b = 0; b < state.blocks().size(); b++)
                {
                    out.append(" b").append(b).append(' ').append(show(state.blocks().get(b)));
                }
                out.append("; writes ").append(state.history());
            }
            return out.toString();
        }

        private List<Step> steps(final State state)
        {
            final List<Step> steps = new ArrayList<>();
            for (int i = 0; i < state.acts().size(); i++)
            {
                if (state.acts().get(i).pc() > 0)
                {
                    final Next next = new Next(state);
                    final String label = move(next, i, state.acts().get(i));
                    steps.add(new Step(scope.actors().get(i).name().toLowerCase() + ": " + label, next.freeze()));
                }
            }
            for (int b = 0; b < state.blocks().size(); b++)
            {
                final Block block = state.blocks().get(b);
                // a block never named lies in a chunk its writer still holds: only an unlinked one is freed
                if (block.published() && !block.garbage() && blockOf(state.slot()) != b &&
                    (scope.variant() == Variant.NO_GRACE || !held(state, b)))
                {
                    final Next next = new Next(state);
                    next.blocks.set(b, new Block(block.writeId(), block.tombstone(), block.initialized(), true, true));
                    steps.add(new Step("reclaimer: frees b" + b + "'s chunk", next.freeze()));
                }
            }
            return steps;
        }

        /** The grace: an operation past its first read holds the block its word names, and the block it wrote. */
        private boolean held(final State state, final int block)
        {
            for (int i = 0; i < state.acts().size(); i++)
            {
                final Act act = state.acts().get(i);
                if (scope.actors().get(i) != Kind.FILLER && act.pc() >= 2 &&
                    (blockOf(act.word()) == block || act.mine() == block))
                {
                    return true;
                }
            }
            return false;
        }

        private String move(final Next n, final int i, final Act a)
        {
            return switch (scope.actors().get(i))
            {
                case WRITER, DELETER, VERSION_WRITER -> write(n, i, a);
                case READER -> read(n, i, a);
                case CLEANER -> clean(n, i, a);
                case SEALER -> seal(n, i, a);
                case FILLER -> fill(n, i, a);
            };
        }

        /** A blind put, a delete (a tombstone) and a compare-and-set by version, each writing write id i + 1. */
        private String write(final Next n, final int i, final Act a)
        {
            final Kind kind = scope.actors().get(i);
            final String lost = "CAS from " + show(a.word()) + " lost (the slot holds " + show(n.slot) + ")";
            if (a.pc() == 1)
            {
                n.acts.set(i, new Act(2, n.slot, -1, n.writeIdAt(n.slot), n.latest(), a.tries()));
                return "reads the slot: " + show(n.slot) + (kind == Kind.VERSION_WRITER ? ", write id w" +
                    n.writeIdAt(n.slot) : "");
            }
            if (a.pc() == 2)
            {
                final int mine = n.add(new Block(i + 1, kind == Kind.DELETER, true, false, false));
                n.acts.set(i, a.next(3, a.word(), mine));
                return "writes b" + mine + " " + show(n.blocks.get(mine));
            }
            if (a.pc() == 3 && n.slot == a.word())
            {
                n.install(name(a.mine(), false), i + 1);
                n.acts.set(i, Act.OVER);
                return "CAS " + show(a.word()) + " -> " + show(n.slot) + ": won";
            }
            if (a.pc() == 3 && kind != Kind.VERSION_WRITER)
            {
                final boolean again = a.tries() + 1 < 2;
                n.acts.set(i, again ? Act.start(a.tries() + 1) : Act.OVER);
                return lost + (again ? ": tries again" : ": gives up");
            }
            if (a.pc() == 3)
            {
                n.acts.set(i, a.next(4, a.word(), a.mine()));
                return lost;
            }
            final int writeId = n.writeIdAt(n.slot);
            final boolean unchanged = scope.variant() == Variant.VERSION_BY_WORD ? n.slot == a.word() :
                writeId == a.expect();
            final String read = "reads the slot again, " + show(n.slot) + ", write id w" + writeId;
            if (unchanged)
            {
                n.acts.set(i, a.next(3, n.slot, a.mine()));
                return read + ": tries the CAS again from it";
            }
            n.acts.set(i, Act.OVER);
            if (n.latest() == a.since())
            {
                n.broken = "P3: the compare-and-set by version answered false, but the key's write id is still w" +
                    a.expect() + " as at its read";
            }
            return read + ": answers false";
        }

        private String read(final Next n, final int i, final Act a)
        {
            if (a.pc() == 1)
            {
                n.acts.set(i, new Act(2, n.slot, -1, -1, n.latest(), 0));
                return "reads the slot: " + show(n.slot);
            }
            n.acts.set(i, Act.OVER);
            final int got = n.writeIdAt(a.word());
            if (got == GARBAGE)
            {
                n.broken = "P1: the reader read " + show(a.word()) + ", " + show(n.blocks.get(blockOf(a.word()))) +
                    ": garbage";
            }
            else if (!n.history.subList(a.since(), n.history.size()).contains(got))
            {
                n.broken = "P1: the reader got w" + got + ", not the key's value at any moment of its read (" +
                    n.history.subList(a.since(), n.history.size()) + ")";
            }
            return "reads b" + blockOf(a.word()) + ": " + (got == GARBAGE ? "garbage" : "w" + got);
        }

        private String clean(final Next n, final int i, final Act a)
        {
            final boolean compare = scope.variant() != Variant.MOVE_WITHOUT_COMPARE;
            if (a.pc() == 1)
            {
                if (n.slot == EMPTY || sealed(n.slot) && scope.variant() != Variant.MOVES_SEALED)
                {
                    n.acts.set(i, pass(a));
                    return "reads the slot, " + show(n.slot) + ": leaves it";
                }
                n.acts.set(i, a.next(2, n.slot, -1));
                return "reads the slot: " + show(n.slot);
            }
            final Block from = n.blocks.get(blockOf(a.word()));
            if (a.pc() == 2)
            {
                final boolean whole = scope.variant() != Variant.CAS_BEFORE_COPY;
                final int mine = n.add(new Block(from.writeId(), from.tombstone(), whole && from.initialized(),
                    from.garbage(), false));
                n.acts.set(i, a.next(3, a.word(), mine));
                return (whole ? "copies b" + blockOf(a.word()) + " to b" : "allocates, not yet copying, b") + mine;
            }
            if (a.pc() == 3)
            {
                if (compare && n.slot != a.word())
                {
                    n.acts.set(i, pass(a));
                    return "CAS from " + show(a.word()) + " lost (the slot holds " + show(n.slot) + "): drops b" +
                        a.mine();
                }
                final int was = n.slot;
                n.install(name(a.mine(), sealed(a.word())), -1);
                n.acts.set(i, scope.variant() == Variant.CAS_BEFORE_COPY ? a.next(4, a.word(), a.mine()) : pass(a));
                return (compare ? "CAS " : "writes over ") + show(was) + " -> " + show(n.slot);
            }
            n.blocks.set(a.mine(), new Block(from.writeId(), from.tombstone(), from.initialized(), from.garbage(),
                n.blocks.get(a.mine()).published()));
            n.acts.set(i, pass(a));
            return "copies b" + blockOf(a.word()) + "'s bytes into b" + a.mine();
        }

        private Act pass(final Act a)
        {
            return a.tries() + 1 < scope.passes() ? Act.start(a.tries() + 1) : Act.OVER;
        }

        private String seal(final Next n, final int i, final Act a)
        {
            if (a.pc() == 1)
            {
                n.acts.set(i, a.next(2, n.slot, -1));
                return "reads the slot: " + show(n.slot);
            }
            final int filler = scope.actors().indexOf(Kind.FILLER);
            if (n.slot == a.word())
            {
                n.slot = name(blockOf(a.word()), true);
                n.acts.set(i, Act.OVER);
                n.acts.set(filler, Act.start(0).next(1, n.slot, -1));
                return "CAS " + show(a.word()) + " -> " + show(n.slot) + ": won, the fill may start";
            }
            final boolean again = a.tries() + 1 < 2;
            n.acts.set(i, again ? Act.start(a.tries() + 1) : Act.OVER);
            if (!again)
            {
                n.acts.set(filler, Act.OVER);
            }
            return "CAS from " + show(a.word()) + " lost" + (again ? ": tries again" : ": gives up, nothing to fill");
        }

        private String fill(final Next n, final int i, final Act a)
        {
            n.acts.set(i, Act.OVER);
            if (n.slot == a.word())
            {
                n.slot = name(blockOf(a.word()), false);
                return "CAS " + show(a.word()) + " -> " + show(n.slot) + ": the seal is cleared";
            }
            // ReplicaCopier.clearSeals: a word other than the sealed one is taken for a write's, which puts no seal
            return "CAS from " + show(a.word()) + " lost (the slot holds " + show(n.slot) + "): takes it for a write";
        }
    }

    private static int name(final int block, final boolean sealed)
    {
        return block * 2 + (sealed ? 1 : 0);
    }

    private static int blockOf(final int word)
    {
        return word == EMPTY ? EMPTY : word / 2;
    }

    private static boolean sealed(final int word)
    {
        return word != EMPTY && word % 2 == 1;
    }

    private static String show(final int word)
    {
        return word == EMPTY ? "EMPTY" : "b" + blockOf(word) + (sealed(word) ? "+sealed" : "");
    }

    private static String show(final Block block)
    {
        return "{w" + block.writeId() + (block.tombstone() ? " tombstone" : "") +
            (block.initialized() ? "" : " uncopied") + (block.garbage() ? " freed" : "") + "}";
    }
}
