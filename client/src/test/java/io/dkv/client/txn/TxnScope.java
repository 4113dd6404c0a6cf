package io.dkv.client.txn;

import java.util.List;

/**
 * How much the explorer covers: one or two coordinators, each running one transaction once (a transaction that aborts
 * answers failed; retrying is a new transaction), an observer (two gets, x then y, or a read-only transaction of x
 * and y), and optionally a single-key writer; how many coordinators may crash, and how many compare-and-sets may have
 * an unknown outcome.
 *
 * @param coordinators       each coordinator's transaction: T1, T2.
 * @param observer           the reader, if any.
 * @param writerKey          the key the writer puts, or {@link #NO_WRITER}.
 * @param coordinatorCrashes how many coordinators may crash, at any step after they start.
 * @param unknowns           how many compare-and-sets, of anyone, may end with an unknown outcome.
 * @param variant            the protocol, or a broken form of it.
 */
record TxnScope(List<Workload> coordinators, Observer observer, int writerKey, int coordinatorCrashes, int unknowns,
    TxnVariant variant)
{
    static final int NO_WRITER = -1;

    /** Who reads besides the coordinators. */
    enum Observer
    {
        NONE,
        /** Two single-key gets, x then y: two operations. */
        GETS,
        /** A read-only transaction of x and y: reads both, then validates both. */
        READ_ONLY
    }

    TxnScope
    {
        coordinators = List.copyOf(coordinators);
        if (coordinators.isEmpty() || coordinators.size() > 2 || coordinatorCrashes < 0 ||
            coordinatorCrashes > coordinators.size() || unknowns < 0 || unknowns > 2 || writerKey >= KeyInts.MAX_KEYS)
        {
            throw new IllegalArgumentException("scope out of range: " + coordinators + " crashes=" +
                coordinatorCrashes + " unknowns=" + unknowns);
        }
    }

    TxnScope with(final TxnVariant other)
    {
        return new TxnScope(coordinators, observer, writerKey, coordinatorCrashes, unknowns, other);
    }

    int keys()
    {
        int highest = Math.max(writerKey, Values.Y);
        for (final Workload workload : coordinators)
        {
            highest = Math.max(highest, workload.highestKey());
        }
        return highest + 1;
    }

    Workload workload(final int coordinator)
    {
        return coordinators.get(coordinator);
    }

    /**
     * @return whether the coordinator's transaction commits in parallel (STAGING): under a parallel variant, one that
     * reads no key it does not write and writes more than one; every other keeps the protocol.
     */
    boolean parallel(final int coordinator)
    {
        final Workload workload = workload(coordinator);
        return variant.parallelCommit() && workload.validated() == 0 && workload.secondaries() != 0;
    }

    boolean hasWriter()
    {
        return writerKey != NO_WRITER;
    }

    // actors: the coordinators, then the observer, then the writer -----------------------------------------------

    int actors()
    {
        return coordinators.size() + (observer == Observer.NONE ? 0 : 1) + (hasWriter() ? 1 : 0);
    }

    int observerActor()
    {
        return observer == Observer.NONE ? -1 : coordinators.size();
    }

    int writerActor()
    {
        return hasWriter() ? actors() - 1 : -1;
    }

    String actorName(final int actor)
    {
        if (actor < coordinators.size())
        {
            return "T" + (actor + 1);
        }
        return actor == observerActor() ? (observer == Observer.GETS ? "G" : "RO") : "W";
    }

    /** @return the id the writer appends to no value: its value is the list [id]. */
    int writerId()
    {
        return coordinators.size() + 1;
    }

    /** @return the write id of an actor's n-th write (n from 1); 0 is the initial content's. */
    int version(final int actor, final int n)
    {
        return (actor + 1) * 1000 + n;
    }

    String version(final int version)
    {
        return version == 0 ? "v0" : actorName(version / 1000 - 1) + "#" + version % 1000;
    }

    // operations: one per coordinator, the observer's (two gets or one), the writer's ------------------------------

    int operations()
    {
        return coordinators.size() + observerOps() + (hasWriter() ? 1 : 0);
    }

    int observerOps()
    {
        return switch (observer)
        {
            case NONE -> 0;
            case GETS -> 2;
            case READ_ONLY -> 1;
        };
    }

    int observerOp()
    {
        return coordinators.size();
    }

    int writerOp()
    {
        return operations() - 1;
    }

    String opName(final int op)
    {
        if (op < coordinators.size())
        {
            return "T" + (op + 1);
        }
        if (op < coordinators.size() + observerOps())
        {
            return observer == Observer.GETS ? "G(" + Values.key(op - coordinators.size()) + ")" : "RO";
        }
        return "W";
    }

    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        for (int c = 0; c < coordinators.size(); c++)
        {
            out.append("T").append(c + 1).append('=').append(coordinators.get(c)).append(' ');
        }
        return out.append(observer == Observer.NONE ? "" : observer == Observer.GETS ? "+gets " : "+read-only ")
            .append(hasWriter() ? "+put(" + Values.key(writerKey) + ") " : "")
            .append("crashes=").append(coordinatorCrashes).append(" unknowns=").append(unknowns).append(' ')
            .append(variant).toString();
    }
}
