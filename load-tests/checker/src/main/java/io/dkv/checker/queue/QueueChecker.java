package io.dkv.checker.queue;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges a total queue's history: {@link #ENQUEUE}s of unique elements onto queue keys, {@link #DEQUEUE}s that take
 * one element from a key (ok with the element, or ok with null when nothing came before the pop's timeout), and, once
 * the workload stopped, {@link #DRAIN}s reading what each key still holds. Valid when
 * <ul>
 *     <li>every element taken or left was enqueued (ok or indeterminate), onto that key, and not taken before its
 *     enqueue began (no element from nowhere: "unexpected");</li>
 *     <li>no element was taken by two ok dequeues, nor taken and still left, nor left twice ("duplicated");</li>
 *     <li>every element whose enqueue was ok was taken by an ok dequeue, or left, or may have been taken by an
 *     indeterminate dequeue of its key: on each key, no more such unaccounted elements than indeterminate dequeues
 *     ("lost" otherwise).</li>
 * </ul>
 * The last drain of a key (by invocation) is what was left. An element a drain found that an ok dequeue took counts
 * as left twice only if that dequeue completed before the drain began; one that overlapped it may have taken the
 * element after the drain read it.
 */
public final class QueueChecker
{
    /** Put the element (the op's value) at the tail of the queue key. */
    public static final String ENQUEUE = "enqueue";
    /** Take the element at the head of the queue key: the ok value is the element, or null when none came in time. */
    public static final String DEQUEUE = "dequeue";
    /** Read what the queue key holds, head first: the ok value is a list of elements. */
    public static final String DRAIN = Op.READ;
    private static final int EXAMPLES = 10;

    public QueueResult check(final History history)
    {
        final Map<Object, Operation> enqueues = new HashMap<>();
        final Set<Object> failedEnqueues = new LinkedHashSet<>();
        final Map<Object, List<Operation>> taken = new LinkedHashMap<>();
        final Map<String, Integer> indeterminateDequeues = new HashMap<>();
        final Map<String, Operation> drains = new LinkedHashMap<>();
        int enqueuedOk = 0;
        int enqueuedInfo = 0;
        int dequeuedInfo = 0;
        int dequeuedEmpty = 0;
        for (final Operation operation : history.operations())
        {
            switch (operation.f())
            {
                case ENQUEUE ->
                {
                    if (operation.isFail())
                    {
                        failedEnqueues.add(operation.invoke().value());
                        continue;
                    }
                    final Operation earlier = enqueues.put(operation.invoke().value(), operation);
                    if (earlier != null)
                    {
                        throw new IllegalArgumentException("element " + operation.invoke().value() +
                            " enqueued twice, by " + earlier + " and " + operation + ": elements must be unique");
                    }
                    if (operation.isOk())
                    {
                        enqueuedOk++;
                    }
                    else
                    {
                        enqueuedInfo++;
                    }
                }
                case DEQUEUE ->
                {
                    if (operation.isIndeterminate())
                    {
                        dequeuedInfo++;
                        indeterminateDequeues.merge(operation.key(), 1, Integer::sum);
                    }
                    else if (operation.isOk() && operation.value() == null)
                    {
                        dequeuedEmpty++;
                    }
                    else if (operation.isOk())
                    {
                        taken.computeIfAbsent(operation.value(), element -> new ArrayList<>(1)).add(operation);
                    }
                }
                case DRAIN ->
                {
                    if (operation.isOk())
                    {
                        // operations come in invocation order: the last one seen began last
                        drains.put(operation.key(), operation);
                    }
                }
                default -> throw new IllegalArgumentException("not a queue operation: " + operation +
                    "; expected " + ENQUEUE + ", " + DEQUEUE + " or " + DRAIN);
            }
        }

        final Findings findings = new Findings();
        final Map<Object, Operation> left = new LinkedHashMap<>();
        for (final Operation drain : drains.values())
        {
            final List<?> elements = drain.value() == null ? List.of() : (List<?>)drain.value();
            for (final Object element : elements)
            {
                final Operation already = left.put(element, drain);
                if (already != null)
                {
                    findings.duplicated(element, "left twice, by the drains " + already + " and " + drain,
                        List.of(already, drain));
                }
                checkOrigin(element, drain, enqueues, failedEnqueues, findings);
            }
        }
        int dequeuedOk = 0;
        for (final Map.Entry<Object, List<Operation>> entry : taken.entrySet())
        {
            final Object element = entry.getKey();
            final List<Operation> takers = entry.getValue();
            dequeuedOk += takers.size();
            if (takers.size() > 1)
            {
                findings.duplicated(element, "taken " + takers.size() + " times: " + takers, takers);
            }
            final Operation drain = left.get(element);
            if (drain != null)
            {
                for (final Operation taker : takers)
                {
                    if (taker.completeTime() < drain.invokeTime())
                    {
                        findings.duplicated(element, "taken by " + taker + ", then still left for " + drain,
                            List.of(taker, drain));
                        break;
                    }
                }
            }
            for (final Operation taker : takers)
            {
                checkOrigin(element, taker, enqueues, failedEnqueues, findings);
            }
        }

        final Map<String, List<Operation>> unaccounted = new LinkedHashMap<>();
        for (final Operation enqueue : enqueues.values())
        {
            final Object element = enqueue.invoke().value();
            if (enqueue.isOk() && !taken.containsKey(element) && !left.containsKey(element))
            {
                unaccounted.computeIfAbsent(enqueue.key(), key -> new ArrayList<>()).add(enqueue);
            }
        }
        final List<String> undrained = new ArrayList<>();
        int judged = 0;
        for (final Map.Entry<String, List<Operation>> entry : unaccounted.entrySet())
        {
            final String key = entry.getKey();
            final List<Operation> missing = entry.getValue();
            if (!drains.containsKey(key))
            {
                undrained.add(key + " (" + missing.size() + " elements not taken)");
                continue;
            }
            judged += missing.size();
            final int mayHaveTaken = indeterminateDequeues.getOrDefault(key, 0);
            if (missing.size() > mayHaveTaken)
            {
                findings.lost(key, missing, mayHaveTaken);
            }
        }

        final QueueResult.Tally tally = new QueueResult.Tally(enqueuedOk, enqueuedInfo, dequeuedOk, dequeuedInfo,
            dequeuedEmpty, left.size(), judged, findings.duplicated.size(), findings.lostCount,
            findings.unexpected.size());
        return new QueueResult(findings.valid(), text(findings, tally, undrained), tally,
            List.copyOf(findings.duplicated), List.copyOf(findings.lost), List.copyOf(findings.unexpected),
            List.copyOf(findings.witness));
    }

    private static void checkOrigin(
        final Object element,
        final Operation found,
        final Map<Object, Operation> enqueues,
        final Set<Object> failedEnqueues,
        final Findings findings)
    {
        final Operation enqueue = enqueues.get(element);
        if (enqueue == null)
        {
            findings.unexpected(element, found + " found " + element + ", which " +
                (failedEnqueues.contains(element) ? "an enqueue that failed offered" : "nobody enqueued"), found, null);
        }
        else if (!enqueue.key().equals(found.key()))
        {
            findings.unexpected(element, found + " found " + element + " on " + found.key() + ", enqueued onto " +
                enqueue.key() + " by " + enqueue, found, enqueue);
        }
        else if (found.completeTime() < enqueue.invokeTime())
        {
            findings.unexpected(element, found + " found " + element + " before " + enqueue + " began", found,
                enqueue);
        }
    }

    private static String text(final Findings findings, final QueueResult.Tally tally, final List<String> undrained)
    {
        final StringBuilder text = new StringBuilder()
            .append(findings.valid() ? "valid" : "INVALID").append(": ")
            .append(tally.enqueuedOk()).append(" enqueued ok, ").append(tally.enqueuedInfo())
            .append(" indeterminate; ").append(tally.dequeuedOk()).append(" dequeued ok, ")
            .append(tally.dequeuedInfo()).append(" indeterminate, ").append(tally.dequeuedEmpty())
            .append(" empty; ").append(tally.left()).append(" left; ").append(tally.unaccounted())
            .append(" enqueued ok neither taken nor left; ").append(tally.duplicated())
            .append(" duplicated, ").append(tally.lost()).append(" lost, ").append(tally.unexpected())
            .append(" unexpected");
        if (!undrained.isEmpty())
        {
            text.append("\n  no final drain of ").append(String.join(", ", undrained)).append(": not judged");
        }
        for (final String why : findings.why.subList(0, Math.min(findings.why.size(), EXAMPLES)))
        {
            text.append("\n  ").append(why);
        }
        if (findings.why.size() > EXAMPLES)
        {
            text.append("\n  ... and ").append(findings.why.size() - EXAMPLES).append(" more");
        }
        return text.toString();
    }

    /** What breaks the rules, each element once per rule, with the operations that show it. */
    private static final class Findings
    {
        private final Set<Object> duplicated = new LinkedHashSet<>();
        private final Set<Object> unexpected = new LinkedHashSet<>();
        private final List<Object> lost = new ArrayList<>();
        private final Set<Operation> witness = new LinkedHashSet<>();
        private final List<String> why = new ArrayList<>();
        private int lostCount;

        void duplicated(final Object element, final String reason, final List<Operation> operations)
        {
            if (duplicated.add(element))
            {
                why.add("duplicated " + element + ": " + reason);
                witness.addAll(operations);
            }
        }

        void unexpected(final Object element, final String reason, final Operation found, final Operation enqueue)
        {
            if (unexpected.add(element))
            {
                why.add("unexpected: " + reason);
                witness.add(found);
                if (enqueue != null)
                {
                    witness.add(enqueue);
                }
            }
        }

        void lost(final String key, final List<Operation> missing, final int mayHaveTaken)
        {
            lostCount += missing.size() - mayHaveTaken;
            final List<Object> elements = new ArrayList<>(missing.size());
            for (final Operation enqueue : missing)
            {
                elements.add(enqueue.invoke().value());
            }
            lost.addAll(elements);
            witness.addAll(missing);
            why.add("lost on " + key + ": " + missing.size() + " elements enqueued ok were neither taken nor left, " +
                "and only " + mayHaveTaken + " indeterminate dequeues could have taken them: " +
                elements.subList(0, Math.min(elements.size(), EXAMPLES)) +
                (elements.size() > EXAMPLES ? " ..." : ""));
        }

        boolean valid()
        {
            return duplicated.isEmpty() && unexpected.isEmpty() && lostCount == 0;
        }
    }
}
