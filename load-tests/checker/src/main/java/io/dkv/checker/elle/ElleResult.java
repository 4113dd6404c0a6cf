package io.dkv.checker.elle;

import org.agrona.collections.Object2IntHashMap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdict on a list-append history: valid, or the anomalies found, each with a bounded number of witnesses.
 */
public final class ElleResult
{
    private final ElleChecker.Model model;
    private final int transactionsChecked;
    private final Map<String, List<Witness>> anomalies;
    private final Map<String, Integer> counts;

    ElleResult(
        final ElleChecker.Model model,
        final int transactionsChecked,
        final Map<String, List<Witness>> witnesses,
        final Object2IntHashMap<String> counts)
    {
        this.model = model;
        this.transactionsChecked = transactionsChecked;
        final Map<String, List<Witness>> anomalies = new LinkedHashMap<>();
        final Map<String, Integer> orderedCounts = new LinkedHashMap<>();
        final List<String> names = new ArrayList<>(counts.keySet());
        names.sort((left, right) -> Integer.compare(AnomalyNames.rank(left), AnomalyNames.rank(right)));
        for (final String name : names)
        {
            anomalies.put(name, List.copyOf(witnesses.getOrDefault(name, List.of())));
            orderedCounts.put(name, counts.getValue(name));
        }
        this.anomalies = Collections.unmodifiableMap(anomalies);
        this.counts = Collections.unmodifiableMap(orderedCounts);
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

    /** @return the witnesses of each anomaly found, at most the checker's limit each. */
    public Map<String, List<Witness>> anomalies()
    {
        return anomalies;
    }

    /**
     * @return how many times the anomaly was found, 0 if never: cycles count once per strongly connected component,
     * except a dependency against real time, which counts each time.
     */
    public int count(final String anomaly)
    {
        return counts.getOrDefault(anomaly, 0);
    }

    /** @return the number of transactions (operations with f txn) the history held. */
    public int transactionsChecked()
    {
        return transactionsChecked;
    }

    public ElleChecker.Model model()
    {
        return model;
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
