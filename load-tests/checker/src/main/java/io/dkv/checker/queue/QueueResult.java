package io.dkv.checker.queue;

import io.dkv.checker.history.Operation;

import java.util.List;

/**
 * What the queue checker found.
 *
 * @param valid      no element lost, duplicated or from nowhere.
 * @param text       the tally and, when invalid, the first reasons.
 * @param tally      how many operations ended how, and how many elements broke each rule.
 * @param duplicated the elements taken twice, or taken and left, or left twice.
 * @param lost       the elements unaccounted for on each key that lost some: more of them than indeterminate
 *                   dequeues there, so that at least {@link Tally#lost()} of them were lost, which ones unknown.
 * @param unexpected the elements found that nobody enqueued, or found on another key or before their enqueue.
 * @param witness    the operations that show each violation.
 */
public record QueueResult(
    boolean valid,
    String text,
    Tally tally,
    List<Object> duplicated,
    List<Object> lost,
    List<Object> unexpected,
    List<Operation> witness)
{
    /**
     * @param enqueuedOk    enqueues ok.
     * @param enqueuedInfo  enqueues of unknown outcome.
     * @param dequeuedOk    dequeues ok that took an element.
     * @param dequeuedInfo  dequeues of unknown outcome.
     * @param dequeuedEmpty dequeues ok that took nothing before their timeout.
     * @param left          elements the last drain of each key found.
     * @param unaccounted   elements enqueued ok onto a drained key, neither taken by an ok dequeue nor left: those
     *                      indeterminate dequeues may have taken, the lost among them.
     * @param duplicated    elements delivered twice.
     * @param lost          elements certainly lost: on each key, those unaccounted for beyond its indeterminate
     *                      dequeues.
     * @param unexpected    elements from nowhere.
     */
    public record Tally(
        int enqueuedOk,
        int enqueuedInfo,
        int dequeuedOk,
        int dequeuedInfo,
        int dequeuedEmpty,
        int left,
        int unaccounted,
        int duplicated,
        int lost,
        int unexpected)
    {
    }
}
