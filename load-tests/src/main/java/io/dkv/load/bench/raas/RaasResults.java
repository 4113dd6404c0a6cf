package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a run of {@code dkv bench raas} measured, collected as the parts finish.
 */
final class RaasResults
{
    final Set<Part> parts;
    final List<JoinRow> join = new ArrayList<>();
    final List<ScaleRow> scale = new ArrayList<>();
    final Map<Provider, Long> driverHeapBytes = new EnumMap<>(Provider.class);
    final List<SharingRow> sharing = new ArrayList<>();
    final List<OverheadRow> overhead = new ArrayList<>();
    final List<ThresholdRow> thresholds = new ArrayList<>();
    final List<StreamRow> streams = new ArrayList<>();
    final List<IsolationRow> isolation = new ArrayList<>();
    final List<LiteRow> lite = new ArrayList<>();

    /**
     * @param parts the parts that were run.
     */
    RaasResults(final Set<Part> parts)
    {
        this.parts = parts.isEmpty() ? EnumSet.noneOf(Part.class) : EnumSet.copyOf(parts);
    }

    List<ScaleRow> scale(final Provider provider, final RaasPath path)
    {
        return on(scale, provider, path);
    }

    List<ThresholdRow> thresholds(final Provider provider, final RaasPath path)
    {
        return on(thresholds, provider, path);
    }

    /** @return the (provider, path) pairs the scale part measured, in the order measured. */
    List<ScaleRow> scaleGroups()
    {
        return firstOfEachPath(scale);
    }

    /** @return the (provider, path) pairs the thresholds part measured, in the order measured. */
    List<ThresholdRow> thresholdGroups()
    {
        return firstOfEachPath(thresholds);
    }

    static <R extends PathRow> List<R> on(final List<R> rows, final Provider provider, final RaasPath path)
    {
        return rows.stream().filter(row -> row.provider() == provider && row.path() == path).toList();
    }

    /** @return the first row of each (provider, path) pair, in the order measured. */
    static <R extends PathRow> List<R> firstOfEachPath(final List<R> rows)
    {
        final List<R> firsts = new ArrayList<>();
        for (final R row : rows)
        {
            if (firsts.stream().noneMatch(first -> first.provider() == row.provider() && first.path() == row.path()))
            {
                firsts.add(row);
            }
        }
        return firsts;
    }
}
