package io.dkv.checker.elle;

import org.agrona.collections.Object2IntHashMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The anomalies found so far: every occurrence counted, witnesses kept up to a limit per anomaly so that a badly
 * broken history still gives a bounded report (and the explanations beyond the limit are never built).
 */
final class Findings
{
    private final int witnessLimit;
    private final Object2IntHashMap<String> counts = new Object2IntHashMap<>(0);
    private final Map<String, List<Witness>> witnesses = new HashMap<>();

    Findings(final int witnessLimit)
    {
        this.witnessLimit = witnessLimit;
    }

    void add(final String anomaly, final Supplier<Witness> witness)
    {
        final int count = counts.getValue(anomaly);
        counts.put(anomaly, count + 1);
        if (count < witnessLimit)
        {
            witnesses.computeIfAbsent(anomaly, name -> new ArrayList<>()).add(witness.get());
        }
    }

    Object2IntHashMap<String> counts()
    {
        return counts;
    }

    Map<String, List<Witness>> witnesses()
    {
        return witnesses;
    }
}
