package io.dkv.client.replication;

import java.util.ArrayList;
import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * One key whose placement moves while two writers put and readers get (client/README.md, "Membership change"), as
 * the explorer walks it: every step of every writer, reader and the driver, a writer's crash and its late CAS.
 */
record MembershipChangeModel(MoveScope scope) implements Model<MoveState>
{
    @Override
    public String name()
    {
        return scope.toString();
    }

    @Override
    public MoveState initial()
    {
        return MoveState.initial(scope);
    }

    @Override
    public List<Step<MoveState>> steps(final MoveState state)
    {
        final List<Step<MoveState>> steps = new ArrayList<>();
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            MoveWriter.steps(state, writer, steps);
            MoveWriter.crash(state, writer, steps);
            MoveWriter.lateCas(state, writer, steps);
        }
        for (int reader = 0; reader < scope.readers(); reader++)
        {
            MoveReader.steps(state, reader, steps);
        }
        MoveDriver.steps(state, steps);
        return steps;
    }

    @Override
    public History history(final MoveState state)
    {
        return state.history();
    }

    @Override
    public String violated(final MoveState state, final boolean terminal)
    {
        return MoveInvariants.violated(state, terminal);
    }

    @Override
    public String describe(final MoveState state)
    {
        return state.nodesToString();
    }
}
