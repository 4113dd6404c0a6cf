package io.dkv.client.txn;

/**
 * The model's keys and values. Keys are x, y and z (0, 1, 2). A value is a list of the ids of the writes that made it,
 * packed in an int (base 8 under a leading 1), as in a list-append workload: every write puts a value no other write
 * puts, and a read names the writes it sees, in order, so that the history checker can tell each write apart by value
 * alone. {@link #NONE} is "no value", as every key starts.
 */
final class Values
{
    static final int X = 0;
    static final int Y = 1;
    static final int Z = 2;
    static final int NONE = 0;

    private static final int BASE = 8;

    private Values()
    {
    }

    /** @return the list with {@code element} appended; appending to no value starts a list. */
    static int append(final int list, final int element)
    {
        if (element <= 0 || element >= BASE)
        {
            throw new IllegalArgumentException("element out of range: " + element);
        }
        return (list == NONE ? 1 : list) * BASE + element;
    }

    static String key(final int key)
    {
        return String.valueOf((char)('x' + key));
    }

    static String show(final int value)
    {
        if (value == NONE)
        {
            return "none";
        }
        final StringBuilder out = new StringBuilder("]");
        for (int rest = value; rest > 1; rest /= BASE)
        {
            out.insert(0, rest % BASE);
            if (rest / BASE > 1)
            {
                out.insert(0, ',');
            }
        }
        return out.insert(0, '[').toString();
    }
}
