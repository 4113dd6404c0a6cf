package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;

import java.util.List;
import java.util.Random;

/**
 * What clients do to the store and how each operation is recorded: the generator of invocations
 * and the code that carries one out.
 */
public interface Workload
{
    /** @return the name on the command line. */
    String name();

    /**
     * @param random  the calling worker's randomness.
     * @param process the process that will invoke it (values unique to it come from here).
     * @return the next invocation, as {@code f}, {@code key} and {@code value} of an {@link Op} (index and time unset).
     */
    Invocation next(Random random, int process);

    /** @return a read of every key the workload uses, in key order: what each client does once every fault healed. */
    List<Invocation> finalReads();

    /**
     * Carry out an invocation.
     *
     * @return the value of its ok completion.
     * @throws FailedOperation when it certainly did not take effect (a compare-and-set that found another value).
     * @throws RuntimeException when its outcome is unknown.
     */
    Object execute(CheckedStore store, Invocation invocation, long deadlineNanos);

    /** An operation about to be invoked. */
    record Invocation(String f, String key, Object value)
    {
        /** @return the key it is on: its own, or the one its transaction's single micro-operation is on. */
        public String target()
        {
            return key != null ? key : String.valueOf(((List<?>)((List<?>)value).getFirst()).get(1));
        }
    }

    /** The operation did not take effect, for a reason the history keeps. */
    final class FailedOperation extends RuntimeException
    {
        public FailedOperation(final String reason)
        {
            super(reason, null, false, false);
        }
    }
}
