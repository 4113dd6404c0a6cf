package io.dkv.load.bench;

import picocli.CommandLine.Option;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * {@code --provider}: the verbs providers a benchmark measures, each in turn. Shared by the benchmarks that measure
 * every provider as a picocli mixin.
 */
public final class ProvidersOption
{
    @Option(names = "--provider", split = ",", defaultValue = "shm,tcp", paramLabel = "NAME",
        description = "Providers to measure, comma-separated: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private List<Provider> providers;

    /** @return the providers given, each once, in the order first given. */
    public List<Provider> selected()
    {
        return List.copyOf(new LinkedHashSet<>(providers));
    }
}
