package io.dkv.checker.linear;

import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;
import org.agrona.collections.LongHashSet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Why no order of a key's operations is linearizable: the longest linearizable order the search found, the
 * register value after it, and for each operation that could come next why it cannot; and which operations
 * real time forbids to come next because another completed before they were invoked.
 *
 * <p>The longest order is one no operation can extend: an operation the register allowed next would have made a
 * longer one. So each operation listed as blocked is refused by the register itself.
 *
 * @param key              the key.
 * @param operationCount   how many operations the key has.
 * @param placedCount      how many of them the search had to place (the others are left out: failed ones,
 *                         indeterminate reads, indeterminate writes nobody observed).
 * @param longestPrefix    the longest order of operations found linearizable, first the earliest.
 * @param valueAfterPrefix the register value after the longest prefix; null when the key is absent.
 * @param lastWrite        the write or cas of the longest prefix that set the value after it, or null when none did.
 * @param blocked          every operation real time allows next, each with why the register does not.
 * @param firstToComplete  the operation left whose completion comes first: all still to place that came after it
 *                         must follow it.
 * @param mustComeAfter    the operations still to place that were invoked after {@code firstToComplete} completed.
 */
public record LinearizabilityExplanation(
    String key,
    int operationCount,
    int placedCount,
    List<Operation> longestPrefix,
    Long valueAfterPrefix,
    Operation lastWrite,
    List<Blocked> blocked,
    Operation firstToComplete,
    List<Operation> mustComeAfter)
{
    private static final int PREFIX_LINES = 20;
    private static final int FOLLOWERS_NAMED = 5;

    /**
     * An operation that could come next by real time but not by the register.
     *
     * @param operation the operation.
     * @param reason    why not, in words.
     */
    public record Blocked(Operation operation, String reason)
    {
        /** @return the operation and the reason, as a line. */
        public String toText()
        {
            return OperationText.of(operation) + " " + reason;
        }
    }

    static LinearizabilityExplanation of(final KeyVerdict verdict)
    {
        if (verdict.verdict() != Verdict.INVALID)
        {
            throw new IllegalArgumentException("only an invalid key has an explanation; " + verdict.key() + " is " +
                verdict.verdict());
        }
        final LongHashSet linearized = new LongHashSet();
        Long value = null;
        Operation lastWrite = null;
        for (final Operation operation : verdict.longestPrefix())
        {
            linearized.add(operation.invoke().index());
            if (Op.WRITE.equals(operation.f()))
            {
                value = RegisterValues.written(operation);
                lastWrite = operation;
            }
            else if (Op.CAS.equals(operation.f()))
            {
                value = RegisterValues.casNew(operation);
                lastWrite = operation;
            }
        }

        Operation firstToComplete = null;
        for (final Operation operation : verdict.placed())
        {
            if (operation.isOk() && !linearized.contains(operation.invoke().index()) &&
                (firstToComplete == null || operation.completion().index() < firstToComplete.completion().index()))
            {
                firstToComplete = operation;
            }
        }
        final long bound = firstToComplete == null ? Long.MAX_VALUE : firstToComplete.completion().index();

        final List<Blocked> blocked = new ArrayList<>();
        final List<Operation> mustComeAfter = new ArrayList<>();
        for (final Operation operation : verdict.placed())
        {
            if (!linearized.contains(operation.invoke().index()))
            {
                if (operation.invoke().index() < bound)
                {
                    blocked.add(new Blocked(operation, reason(operation, value, lastWrite)));
                }
                else
                {
                    mustComeAfter.add(operation);
                }
            }
        }
        return new LinearizabilityExplanation(verdict.key(), verdict.subHistory().size(), verdict.placed().size(),
            verdict.longestPrefix(), value, lastWrite, Collections.unmodifiableList(blocked), firstToComplete,
            Collections.unmodifiableList(mustComeAfter));
    }

    private static String reason(final Operation operation, final Long value, final Operation lastWrite)
    {
        final String holds = holds(value, lastWrite);
        if (Op.READ.equals(operation.f()) && !Objects.equals(RegisterValues.read(operation), value))
        {
            return "cannot come next: " + holds;
        }
        if (Op.CAS.equals(operation.f()) && !Objects.equals(RegisterValues.casExpected(operation), value))
        {
            return operation.isOk() ? "ok but " + holds : "cannot take effect next: " + holds;
        }
        if (operation.isIndeterminate())
        {
            final Long written = Op.CAS.equals(operation.f()) ?
                RegisterValues.casNew(operation) : RegisterValues.written(operation);
            return "may take effect next, but nothing that could follow reads the " + OperationText.value(written) +
                " it writes";
        }
        return "could come next, but no order continuing with it is linearizable";
    }

    private static String holds(final Long value, final Operation lastWrite)
    {
        if (value != null)
        {
            return "the register holds " + value + ", last written by " + OperationText.of(lastWrite);
        }
        return lastWrite == null ? "the key is absent, nothing written to it yet" : "the key is absent, deleted by " +
            OperationText.of(lastWrite);
    }

    public String toText()
    {
        final StringBuilder text = new StringBuilder(512);
        text.append("key ").append(key).append(": no order of its ").append(operationCount)
            .append(" operations is linearizable");
        if (placedCount < operationCount)
        {
            text.append(" (").append(operationCount - placedCount)
                .append(" left out: failed ones, indeterminate reads, indeterminate writes nobody observed)");
        }
        text.append('\n');
        if (longestPrefix.isEmpty())
        {
            text.append("no operation can come first; the key starts absent\n");
        }
        else
        {
            text.append("the longest linearizable order found has ").append(longestPrefix.size())
                .append(" operations, after which the register ")
                .append(valueAfterPrefix == null ? "is absent" : "holds " + valueAfterPrefix).append(":\n");
            final int first = Math.max(0, longestPrefix.size() - PREFIX_LINES);
            if (first > 0)
            {
                text.append("  ... ").append(first).append(" earlier\n");
            }
            for (int i = first; i < longestPrefix.size(); i++)
            {
                text.append("  ").append(i + 1).append(". ").append(OperationText.of(longestPrefix.get(i)))
                    .append('\n');
            }
            text.append("none of the operations that could come next can:\n");
        }
        for (final Blocked next : blocked)
        {
            text.append("  ").append(next.toText()).append('\n');
        }
        if (firstToComplete != null && !mustComeAfter.isEmpty())
        {
            text.append("by real time ").append(OperationText.of(firstToComplete))
                .append(" must come before ");
            for (int i = 0; i < Math.min(FOLLOWERS_NAMED, mustComeAfter.size()); i++)
            {
                text.append(i == 0 ? "" : ", ").append(OperationText.of(mustComeAfter.get(i)));
            }
            if (mustComeAfter.size() > FOLLOWERS_NAMED)
            {
                text.append(" and ").append(mustComeAfter.size() - FOLLOWERS_NAMED).append(" more");
            }
            text.append(": it completed before their invocation\n");
        }
        return text.toString();
    }

    public String toString()
    {
        return toText();
    }
}
