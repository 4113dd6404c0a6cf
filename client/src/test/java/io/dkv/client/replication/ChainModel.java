package io.dkv.client.replication;

import java.util.List;

/**
 * The replication protocol of one key whose placement stays put ({@link ChainProtocol}), as the explorer walks it.
 */
record ChainModel(Scope scope) implements Model<ModelState>
{
    @Override
    public String name()
    {
        return scope.toString();
    }

    @Override
    public ModelState initial()
    {
        return ModelState.initial(scope);
    }

    @Override
    public List<Step<ModelState>> steps(final ModelState state)
    {
        return ChainProtocol.steps(state);
    }

    @Override
    public History history(final ModelState state)
    {
        return state.history();
    }

    @Override
    public String violated(final ModelState state, final boolean terminal)
    {
        return Invariants.violated(state, terminal);
    }

    @Override
    public String describe(final ModelState state)
    {
        return state.replicasToString();
    }
}
