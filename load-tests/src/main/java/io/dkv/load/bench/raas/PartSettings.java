package io.dkv.load.bench.raas;

import io.dkv.load.bench.RandomOffsets;
import io.dkv.raas.RaasContext;

import java.io.PrintWriter;
import java.util.function.UnaryOperator;

/**
 * What every part of {@code dkv bench raas} that starts drivers of its own runs with, as the command's options set it.
 *
 * @param driverSettings what the drivers are started with, on top of the defaults.
 * @param warmupMillis   how long each subject runs, discarded, before it is timed.
 * @param regionLength   bytes of the region READs go to.
 * @param seed           seed of the random offsets and message bytes, so that runs use the same ones.
 * @param progress       where a part says what it is doing while it runs.
 */
record PartSettings(
    UnaryOperator<RaasContext> driverSettings,
    long warmupMillis,
    long regionLength,
    long seed,
    PrintWriter progress)
{
    /** @return these settings with the drivers' replaced, e.g. by the same with more on top. */
    PartSettings withDriverSettings(final UnaryOperator<RaasContext> settings)
    {
        return new PartSettings(settings, warmupMillis, regionLength, seed, progress);
    }

    /** @return the drivers' settings with the path's on top: how a part's drivers are started on that path. */
    UnaryOperator<RaasContext> on(final RaasPath path)
    {
        return context -> path.configure(driverSettings.apply(context));
    }

    /** @return random offsets into the region for READs of {@code size} bytes, the same for every run of a seed. */
    long[] offsets(final int size)
    {
        return RandomOffsets.generate(seed, regionLength, size);
    }
}
