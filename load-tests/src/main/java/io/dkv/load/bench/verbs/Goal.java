package io.dkv.load.bench.verbs;

import io.dkv.load.bench.Provider;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A target for the p50 latency of an operation on a provider, as a multiple of its floor.
 *
 * @param provider    the provider.
 * @param operation   the operation.
 * @param maxP50Ratio the largest verbs p50 / floor p50 that meets the goal.
 * @param floorLabel  how the floor is called in the goal's title.
 */
record Goal(Provider provider, Operation operation, double maxP50Ratio, String floorLabel)
{
    /** The goals the verbs providers are held to. */
    static final List<Goal> VERBS_GOALS = List.of(
        new Goal(Provider.SHM, Operation.READ, 3.0, "floor"),
        new Goal(Provider.TCP, Operation.READ, 1.5, "ping-pong"));

    String title()
    {
        return provider + " " + operation + " p50 <= " +
            BigDecimal.valueOf(maxP50Ratio).stripTrailingZeros().toPlainString() +
            "x " + floorLabel;
    }

    /**
     * @param rows the results.
     * @return one line per measured size of this goal's operation: met or missed, and the ratio;
     * one line saying so when none was measured.
     */
    List<String> evaluate(final List<ResultRow> rows)
    {
        final List<String> lines = new ArrayList<>();
        for (final ResultRow row : rows)
        {
            if (row.provider() == provider && row.operation() == operation)
            {
                final double ratio = row.p50Ratio();
                lines.add(String.format(Locale.ROOT, "%s, %d B: %s (measured %.2fx)",
                    title(), row.size(), ratio <= maxP50Ratio ? "MET" : "MISSED", ratio));
            }
        }
        if (lines.isEmpty())
        {
            lines.add(title() + ": NOT MEASURED (" + provider + " " + operation + " was not selected)");
        }
        return lines;
    }
}
