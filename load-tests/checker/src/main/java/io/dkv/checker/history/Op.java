package io.dkv.checker.history;

/**
 * One event of a history: an invocation or a completion.
 *
 * <p>Values are JSON values: {@code null}, a {@link Long}, a {@link String}, or a
 * {@link java.util.List} of values. For registers the functions are {@code read} (value: what was
 * read, known at completion; null for an absent key), {@code write} (the value written) and
 * {@code cas} (a list {@code [expected, new]}). For list-append the function is {@code txn} and the
 * value a list of micro-operations {@code ["append", key, element]} and {@code ["r", key, list]},
 * with the lists read known at completion; the key of the event itself is then null.
 *
 * @param index   position in the history, from 0.
 * @param type    invocation or how the operation ended.
 * @param process the logical process (one operation at a time; a process whose operation ended in
 *                info is never used again, a new one takes its place).
 * @param f       the function.
 * @param key     the key the operation is on, or null for a transaction.
 * @param value   the value (see above).
 * @param time    nanoseconds since the history began.
 * @param error   what went wrong for fail and info, or null.
 */
public record Op(long index, OpType type, int process, String f, String key, Object value, long time, String error)
{
    public static final String READ = "read";
    public static final String WRITE = "write";
    public static final String CAS = "cas";
    public static final String TXN = "txn";
    public static final String APPEND = "append";
    public static final String READ_LIST = "r";

    public Op
    {
        if (type == null || f == null)
        {
            throw new IllegalArgumentException("an op needs a type and a function: index " + index + ", type " + type +
                ", f " + f);
        }
    }

    public Op withIndex(final long newIndex)
    {
        return new Op(newIndex, type, process, f, key, value, time, error);
    }

    public boolean isInvoke()
    {
        return type == OpType.INVOKE;
    }

    public String toString()
    {
        return "{" + index + " " + type.jsonName() + " p" + process + " " + f + (key == null ? "" : " " + key) + " " +
            HistoryJson.valueText(value) + " t=" + time + (error == null ? "" : " error=" + error) + "}";
    }
}
