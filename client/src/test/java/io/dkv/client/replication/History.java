package io.dkv.client.replication;

import java.util.Arrays;

/**
 * What the clients saw of one run, as a register history: operations 0 and 1 are the writers' puts of the values 1
 * and 2, the rest the reader's reads. The register starts at 0, which stands for "absent" (the key has no value),
 * so the first put to land is an insert.
 *
 * @param status     per operation: {@link #NOT_INVOKED}, {@link #PENDING} (invoked, no answer: in flight, or its
 *                   client crashed), {@link #OK} or {@link #FAILED} (the write reported it took no effect).
 * @param readValue  per operation: the value a read returned.
 * @param precedence bit {@code a * n + b} set when operation a answered before b was invoked (real-time order).
 */
record History(int[] status, int[] readValue, int precedence)
{
    static final int NOT_INVOKED = 0;
    static final int PENDING = 1;
    static final int OK = 2;
    static final int FAILED = 3;

    int size()
    {
        return status.length;
    }

    static boolean isWrite(final int op)
    {
        return op < Scope.WRITERS;
    }

    /** @return the value a write puts. */
    static int written(final int op)
    {
        return op + 1;
    }

    boolean precedes(final int a, final int b)
    {
        return (precedence & (1 << (a * size() + b))) != 0;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof History h && h.precedence == precedence && Arrays.equals(h.status, status) &&
            Arrays.equals(h.readValue, readValue);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * Arrays.hashCode(status) + Arrays.hashCode(readValue)) + precedence;
    }

    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        for (int op = 0; op < size(); op++)
        {
            out.append(op == 0 ? "" : "; ").append(describe(op));
            for (int before = 0; before < size(); before++)
            {
                if (precedes(before, op))
                {
                    out.append(" after ").append(name(before));
                }
            }
        }
        return out.toString();
    }

    private String describe(final int op)
    {
        final String outcome = switch (status[op])
        {
            case NOT_INVOKED -> "not invoked";
            case PENDING -> "no answer";
            case OK -> isWrite(op) ? "ok" : "returned " + readValue[op];
            default -> "failed";
        };
        return name(op) + (isWrite(op) ? " put(" + written(op) + ")" : " get()") + " " + outcome;
    }

    static String name(final int op)
    {
        return isWrite(op) ? "W" + (op + 1) : "R" + (op - Scope.WRITERS + 1);
    }
}
