package io.dkv.client.replication;

import java.util.List;

/**
 * What {@link Explorer} walks: a protocol's states and the atomic steps between them. States must compare by value,
 * as the walk visits each distinct state once.
 *
 * @param <S> the state.
 */
interface Model<S>
{
    /**
     * One atomic step of the protocol.
     *
     * @param label what happened, for the counterexample's trace.
     * @param next  the state it leads to.
     * @param <S>   the state.
     */
    record Step<S>(String label, S next)
    {
    }

    String name();

    S initial();

    /** @return every step some actor may take from the state; none when the run has finished. */
    List<Step<S>> steps(S state);

    History history(S state);

    /** @return why the state breaks an invariant, or null when it keeps them all. */
    String violated(S state, boolean terminal);

    /** @return the replicas' slots, shown beside each step of a counterexample. */
    String describe(S state);
}
