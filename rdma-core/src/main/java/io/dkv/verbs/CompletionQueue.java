package io.dkv.verbs;

/**
 * Completion queue, as {@code ibv_cq}. Many queue pairs may complete into one CQ; exactly one
 * thread polls it.
 */
public interface CompletionQueue extends AutoCloseable
{
    /**
     * Poll up to {@code completions.length} completions, as {@code ibv_poll_cq}. Allocates nothing.
     *
     * @param completions reused completion objects that are filled in order.
     * @return how many were filled, 0 when none is ready.
     * @throws VerbsException if the queue overran (more completions than its depth were pending).
     */
    int poll(WorkCompletion[] completions);

    /**
     * Poll up to {@code max} completions into the first {@code max} entries of {@code completions}.
     */
    int poll(WorkCompletion[] completions, int max);

    /** @return how many completions the queue holds before it overruns. */
    int depth();

    void close();
}
