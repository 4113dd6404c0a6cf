package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;

import java.util.List;

/**
 * Evidence of one anomaly: the transactions involved and, for a cycle, its dependencies in order.
 *
 * @param anomaly      the anomaly's name (see {@link AnomalyNames}).
 * @param transactions the transactions involved; for a cycle, in cycle order.
 * @param cycle        the dependencies of the cycle, each from a transaction to the next (the last back to the
 *                     first), or empty when the anomaly is not a cycle.
 * @param explanation  the evidence in words, several lines for a cycle.
 */
public record Witness(String anomaly, List<Operation> transactions, List<Dependency> cycle, String explanation)
{
    public Witness
    {
        transactions = List.copyOf(transactions);
        cycle = List.copyOf(cycle);
    }
}
