package io.dkv.load.bench.raas;

import java.util.Locale;

/**
 * The sub-benchmarks of {@code dkv bench raas}, selectable with {@code --only}.
 */
public enum Part
{
    JOIN,
    SCALE,
    SHARING,
    OVERHEAD,
    THRESHOLDS,
    STREAMS,
    ISOLATION,
    LITE;

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
