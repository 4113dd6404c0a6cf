package io.dkv.checker.elle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdict on a list-append history: valid, or the anomalies found, each with a bounded number of witnesses.
 *
 * @param model               the consistency model checked against.
 * @param transactionsChecked the number of transactions (operations with f txn) the history held.
 * @param anomalies           the witnesses of each anomaly found, at most the checker's limit each, in the order of
 *                            {@link AnomalyNames#ALL}.
 * @param counts              how many times each anomaly was found (see {@link #count}), in the same order.
 */
public record ElleResult(
    ElleChecker.Model model,
    int transactionsChecked,
    Map<String, List<Witness>> anomalies,
    Map<String, Integer> counts)
{
    /** Orders the anomalies counted as {@link AnomalyNames#ALL} does, each with its witnesses (none if not given). */
    public ElleResult
    {
        final Map<String, List<Witness>> orderedAnomalies = new LinkedHashMap<>();
        final Map<String, Integer> orderedCounts = new LinkedHashMap<>();
        final List<String> names = new ArrayList<>(counts.keySet());
        names.sort((left, right) -> Integer.compare(AnomalyNames.rank(left), AnomalyNames.rank(right)));
        for (final String name : names)
        {
            orderedAnomalies.put(name, List.copyOf(anomalies.getOrDefault(name, List.of())));
            orderedCounts.put(name, counts.get(name));
        }
        anomalies = Collections.unmodifiableMap(orderedAnomalies);
        counts = Collections.unmodifiableMap(orderedCounts);
    }

    /** @return true when no anomaly was found. */
    public boolean isValid()
    {
        return anomalies.isEmpty();
    }

    /**
     * @return the names of the anomalies found (see {@link AnomalyNames}), in the order of {@link AnomalyNames#ALL}.
     */
    public List<String> anomalyNames()
    {
        return List.copyOf(anomalies.keySet());
    }

    /**
     * @return how many times the anomaly was found, 0 if never: cycles count once per strongly connected component,
     * except a dependency against real time, which counts each time.
     */
    public int count(final String anomaly)
    {
        return counts.getOrDefault(anomaly, 0);
    }

    /** @return the verdict, then every anomaly with its witnesses, over several lines. */
    public String toText()
    {
        final StringBuilder text = new StringBuilder(summary());
        anomalies.forEach((name, witnesses) ->
        {
            final int count = counts.get(name);
            text.append('\n').append(name).append(": found ").append(count)
                .append(count > witnesses.size() ? ", the first " + witnesses.size() + " shown" : "");
            for (final Witness witness : witnesses)
            {
                text.append("\n  ").append(witness.explanation().replace("\n", "\n  "));
            }
        });
        return text.toString();
    }

    private String summary()
    {
        return (isValid() ? "valid" : "INVALID " + anomalyNames()) + " (" + model.text() + ", " + transactionsChecked +
            " transactions checked)";
    }

    public String toString()
    {
        return summary();
    }
}
