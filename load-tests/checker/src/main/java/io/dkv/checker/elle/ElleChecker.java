package io.dkv.checker.elle;

import io.dkv.checker.history.History;

import java.util.Locale;

/**
 * Checks a list-append history for the anomalies that break (strict) serializability, after Kingsbury and
 * Alvaro's Elle: each key's version order is inferred from the lists read, dependencies between transactions from
 * those orders (and from real time), and anomalies are cycles of dependencies or reads no serial order explains.
 *
 * <p>Operations with f {@code txn} are checked, the others ignored. A failed transaction took no effect; an
 * indeterminate one counts as committed as far as anyone read its appends.
 */
public final class ElleChecker
{
    /** The number of witnesses kept per anomaly unless told otherwise. */
    public static final int DEFAULT_WITNESS_LIMIT = 10;

    /** How many edges the searches for cycles with anti-dependencies may examine in all, over every component. */
    private static final long EDGE_BUDGET = 20_000_000L;

    /** The consistency model checked against. */
    public enum Model
    {
        /** Serializable, and in an order that respects real time: cycles through real-time order count. */
        STRICT_SERIALIZABLE,
        /** Serializable in some order: real-time order is ignored. */
        SERIALIZABLE;

        /** @return the model's name as reports print it: strict-serializable, serializable. */
        public String text()
        {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** @return true when cycles through real-time order count. */
        boolean realtime()
        {
            return this == STRICT_SERIALIZABLE;
        }
    }

    private final Model model;
    private final int witnessLimit;

    /** A checker for strict serializability. */
    public ElleChecker()
    {
        this(Model.STRICT_SERIALIZABLE);
    }

    public ElleChecker(final Model model)
    {
        this(model, DEFAULT_WITNESS_LIMIT);
    }

    /** @param witnessLimit how many witnesses to keep per anomaly (all are counted). */
    public ElleChecker(final Model model, final int witnessLimit)
    {
        if (model == null || witnessLimit < 1)
        {
            throw new IllegalArgumentException("a checker needs a model and a witness limit of 1 or more: model " +
                model +
                ", witness limit " + witnessLimit);
        }
        this.model = model;
        this.witnessLimit = witnessLimit;
    }

    /**
     * @throws IllegalArgumentException when a transaction's micro-operations are malformed.
     */
    public ElleResult check(final History history)
    {
        final Findings findings = new Findings(witnessLimit);
        final Transactions transactions = Transactions.of(history);
        final Writers writers = Writers.of(transactions, findings);
        final VersionOrders orders = VersionOrders.of(transactions, findings);
        ReadAnomalies.find(transactions, writers, orders, findings);
        InternalConsistency.find(transactions, findings);
        if (model.realtime())
        {
            LostAppends.find(transactions, orders, findings);
        }

        final DependencyGraph.Builder builder = new DependencyGraph.Builder(transactions.count());
        DataDependencies.add(transactions, writers, orders, builder);
        if (model.realtime())
        {
            RealtimeDependencies.add(history, transactions, builder);
        }
        final DependencyGraph graph = builder.build();
        final CycleExplainer explainer = new CycleExplainer(transactions, orders, graph);
        new CycleSearch(graph, transactions, model.realtime(), EDGE_BUDGET)
            .search((anomaly, cycle) -> findings.add(anomaly, () -> explainer.witness(anomaly, cycle)));
        return new ElleResult(model, transactions.count(), findings.witnesses(), findings.counts());
    }

    public Model model()
    {
        return model;
    }
}
