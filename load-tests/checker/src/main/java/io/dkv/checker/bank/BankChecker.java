package io.dkv.checker.bank;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges a bank's history: accounts that all start at 0, transfers that move an amount from one to another (a
 * transaction reading both and writing both), and snapshots reading every account (a read-only transaction). In any
 * serializable history every snapshot sums to 0, and so do the last reads of every account once writes stopped; a
 * transaction visible before it was whole (G1), or one written on reads that changed under it (a lost update, write
 * skew), makes money or loses it, and some snapshot or the final reads show it. Operations are {@link Op#TXN}s of
 * micro-operations {@code [r, account, balance]} and {@code [transfer, from, to, amount, fromBalance, toBalance]}; a
 * snapshot is a transaction of more than one read and nothing else, and the final reads read one account each.
 */
public final class BankChecker
{
    /** A read of one account's balance. */
    public static final String READ = Op.READ_LIST;
    /** A transfer of an amount between two accounts, with the balances it read. */
    public static final String TRANSFER = "transfer";
    private static final int WITNESS_LIMIT = 10;

    public BankResult check(final History history)
    {
        final List<Operation> broken = new ArrayList<>();
        final List<String> why = new ArrayList<>();
        int snapshots = 0;
        int transfers = 0;
        final Map<String, Operation> lastRead = new HashMap<>();
        int accounts = 0;
        for (final Operation operation : history.operations())
        {
            if (!operation.isOk() || !Op.TXN.equals(operation.f()) || !(operation.value() instanceof List<?> ops))
            {
                continue;
            }
            long sum = 0;
            int reads = 0;
            for (final Object item : ops)
            {
                final List<?> microOp = (List<?>)item;
                if (READ.equals(microOp.get(0)))
                {
                    sum += ((Number)microOp.get(2)).longValue();
                    reads++;
                    if (ops.size() == 1)
                    {
                        lastRead.merge(String.valueOf(microOp.get(1)), operation,
                            (was, now) -> now.invokeTime() > was.invokeTime() ? now : was);
                    }
                }
                else if (TRANSFER.equals(microOp.get(0)))
                {
                    transfers++;
                }
            }
            // a snapshot reads every account, so it is a transaction of reads alone, of more than one
            if (reads == ops.size() && reads > 1)
            {
                snapshots++;
                accounts = Math.max(accounts, reads);
                if (sum != 0)
                {
                    broken.add(operation);
                    why.add("snapshot by process " + operation.process() + " at " + operation.invokeTime() +
                        " ns sums to " + sum + ": " + ops);
                }
            }
        }
        long finalSum = 0;
        for (final Operation read : lastRead.values())
        {
            finalSum += ((Number)((List<?>)((List<?>)read.value()).getFirst()).get(2)).longValue();
        }
        final boolean finalHolds = lastRead.size() < Math.max(accounts, 1) || finalSum == 0;
        if (!finalHolds)
        {
            why.add("the last reads of the " + lastRead.size() + " accounts sum to " + finalSum);
        }
        final String text = (broken.isEmpty() && finalHolds ? "valid" : "INVALID") + ": " + snapshots +
            " snapshots, " + transfers + " transfers ok; " + broken.size() + " snapshots not summing to 0" +
            (lastRead.size() >= Math.max(accounts, 1) ? "; final reads sum to " + finalSum :
                "; no final read of every account") +
            (why.isEmpty() ? "" : "\n  " + String.join("\n  ", why.subList(0, Math.min(why.size(), WITNESS_LIMIT))));
        return new BankResult(broken.isEmpty() && finalHolds, text, broken);
    }

    /**
     * @param valid   no money made or lost.
     * @param text    what was checked and, when invalid, the first witnesses.
     * @param witness the snapshots that did not sum to 0.
     */
    public record BankResult(boolean valid, String text, List<Operation> witness)
    {
    }
}
