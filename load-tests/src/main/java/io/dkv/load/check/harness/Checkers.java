package io.dkv.load.check.harness;

import io.dkv.checker.bank.BankChecker;
import io.dkv.checker.elle.ElleChecker;
import io.dkv.checker.elle.ElleResult;
import io.dkv.checker.elle.Witness;
import io.dkv.checker.history.History;
import io.dkv.checker.history.Operation;
import io.dkv.checker.linear.LinearizabilityChecker;
import io.dkv.checker.linear.LinearizabilityExplanation;
import io.dkv.checker.linear.LinearizabilityResult;
import io.dkv.checker.queue.QueueChecker;
import io.dkv.checker.queue.QueueResult;
import io.dkv.load.check.workload.BankWorkload;
import io.dkv.load.check.workload.ListAppendWorkload;
import io.dkv.load.check.workload.RedisListAppendWorkload;
import io.dkv.load.check.workload.RedisQueueWorkload;
import io.dkv.load.check.workload.RegisterWorkload;
import io.dkv.load.check.workload.ScriptBankWorkload;
import io.dkv.load.check.workload.TxnListAppendWorkload;
import io.dkv.load.check.workload.Workloads;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The checker for each workload's histories: registers for linearizability, lists by the
 * list-append checker under strict serializability (one key per transaction here, so real time is
 * what ties keys together), a bank by its sum, a queue by what each element became.
 */
final class Checkers
{
    static final String LINEARIZABILITY = "linearizability";
    static final String LIST_APPEND = "list-append, strict serializability";
    static final String BANK = "bank: no money made or lost";
    static final String QUEUE = "total queue: no element lost, delivered twice or from nowhere";

    private Checkers()
    {
    }

    static CheckResult check(final String workload, final History history, final Duration budget)
    {
        return switch (workload)
        {
            case RegisterWorkload.NAME -> linearizability(history, budget);
            case ListAppendWorkload.NAME, TxnListAppendWorkload.NAME, RedisListAppendWorkload.NAME ->
                listAppend(history);
            case BankWorkload.NAME, ScriptBankWorkload.NAME -> bank(history);
            case RedisQueueWorkload.NAME -> queue(history);
            default -> throw new IllegalArgumentException("no checker for workload '" + workload +
                "': expected one of " + Workloads.NAMES);
        };
    }

    private static CheckResult linearizability(final History history, final Duration budget)
    {
        final LinearizabilityResult result = new LinearizabilityChecker(budget).check(history);
        final Verdict verdict = switch (result.verdict())
        {
            case VALID -> Verdict.VALID;
            case INVALID -> Verdict.INVALID;
            case UNKNOWN -> Verdict.UNKNOWN;
        };
        return new CheckResult(LINEARIZABILITY, verdict, result.toText(), witnesses(result));
    }

    /**
     * @return where no order could go on: the operations that could not come next, the write that left
     * the value they contradict, and the one that bounds them by real time; the whole sub-history of
     * the failing key when the search gave no such point.
     */
    private static Set<Long> witnesses(final LinearizabilityResult result)
    {
        final LinearizabilityExplanation explanation = result.explanation();
        if (explanation == null || explanation.blocked().isEmpty())
        {
            return invocations(result.failingOperations());
        }
        final Set<Long> indices = new HashSet<>();
        for (final LinearizabilityExplanation.Blocked blocked : explanation.blocked())
        {
            indices.add(blocked.operation().invoke().index());
        }
        for (final Operation operation : new Operation[] {explanation.lastWrite(), explanation.firstToComplete()})
        {
            if (operation != null)
            {
                indices.add(operation.invoke().index());
            }
        }
        return indices;
    }

    private static CheckResult bank(final History history)
    {
        final BankChecker.BankResult result = new BankChecker().check(history);
        return new CheckResult(BANK, result.valid() ? Verdict.VALID : Verdict.INVALID, result.text(),
            invocations(result.witness()));
    }

    private static CheckResult queue(final History history)
    {
        final QueueResult result = new QueueChecker().check(history);
        return new CheckResult(QUEUE, result.valid() ? Verdict.VALID : Verdict.INVALID, result.text(),
            invocations(result.witness()));
    }

    private static CheckResult listAppend(final History history)
    {
        final ElleResult result = new ElleChecker(ElleChecker.Model.STRICT_SERIALIZABLE).check(history);
        final Set<Long> failing = new HashSet<>();
        for (final List<Witness> witnesses : result.anomalies().values())
        {
            for (final Witness witness : witnesses)
            {
                failing.addAll(invocations(witness.transactions()));
            }
        }
        return new CheckResult(LIST_APPEND, result.isValid() ? Verdict.VALID : Verdict.INVALID, result.toText(),
            failing);
    }

    private static Set<Long> invocations(final List<Operation> operations)
    {
        final Set<Long> indices = new HashSet<>();
        if (operations != null)
        {
            for (final Operation operation : operations)
            {
                indices.add(operation.invoke().index());
            }
        }
        return indices;
    }
}
