package io.dkv.checker.history;

/**
 * An invocation paired with its completion: what the checkers reason about.
 *
 * @param invoke     the invocation.
 * @param completion its ok, fail or info event, or null when the history ends before it.
 */
public record Operation(Op invoke, Op completion)
{
    /** @return ok, fail, or info (also when the history ended first: the outcome is unknown). */
    public OpType outcome()
    {
        return completion == null ? OpType.INFO : completion.type();
    }

    public boolean isOk()
    {
        return outcome() == OpType.OK;
    }

    public boolean isFail()
    {
        return outcome() == OpType.FAIL;
    }

    /** @return true when it may or may not have taken effect. */
    public boolean isIndeterminate()
    {
        return outcome() == OpType.INFO;
    }

    public int process()
    {
        return invoke.process();
    }

    public String f()
    {
        return invoke.f();
    }

    public String key()
    {
        return invoke.key();
    }

    /** @return the completion's value when it is ok (reads learn theirs then), else the invocation's. */
    public Object value()
    {
        return completion != null && completion.type() == OpType.OK ? completion.value() : invoke.value();
    }

    public long invokeTime()
    {
        return invoke.time();
    }

    /** @return when it completed; for an indeterminate operation, never ({@link Long#MAX_VALUE}). */
    public long completeTime()
    {
        return outcome() == OpType.INFO ? Long.MAX_VALUE : completion.time();
    }

    public String toString()
    {
        return "p" + process() + " " + f() + (key() == null ? "" : " " + key()) + " " + HistoryJson.valueText(value()) +
            " " + outcome().jsonName() + " [" + invoke.time() + ", " +
            (outcome() == OpType.INFO ? "never" : completion.time()) + "] " +
            "(#" + invoke.index() + ")";
    }
}
