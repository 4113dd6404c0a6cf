package io.dkv.load.bench.ycsb;

import io.dkv.client.KvClientConfiguration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.TreeSet;

import static io.dkv.load.bench.OptionRange.require;

/**
 * {@code --replicas}: the copies of each key dkv keeps, each count a store of its own measured in
 * turn, the smallest the baseline the others are compared with. A picocli mixin.
 */
final class ReplicasOption
{
    static final String NAME = "--replicas";

    @Option(names = NAME, split = ",", defaultValue = "1", paramLabel = "R",
        description = "Copies of each key, comma-separated (1.." + KvClientConfiguration.MAX_REPLICAS + "): dkv runs " +
            "every workload once per count, on a store of its own with as many memory nodes as the largest count; " +
            "the smallest runs beside Redis and is the baseline of the others (default: ${DEFAULT-VALUE}).")
    private List<Integer> replicas;

    /**
     * @param spec the command, for the usage error.
     * @return the counts asked, each once, smallest first.
     * @throws picocli.CommandLine.ParameterException naming a count outside 1..{@link
     * KvClientConfiguration#MAX_REPLICAS}.
     */
    List<Integer> selected(final CommandSpec spec)
    {
        for (final int count : replicas)
        {
            require(spec, NAME, count, 1, KvClientConfiguration.MAX_REPLICAS);
        }
        return List.copyOf(new TreeSet<>(replicas));
    }
}
