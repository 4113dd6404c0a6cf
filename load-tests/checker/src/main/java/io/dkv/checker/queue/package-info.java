/**
 * The total-queue checker: every element enqueued is taken once or left at the end, none twice, none from nowhere;
 * an element unaccounted for is lost unless an indeterminate dequeue of its key may have taken it.
 */
package io.dkv.checker.queue;
