package io.dkv.compute.command;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The order SORT puts elements in, as redis 7.0's sortCompare and the sorts it calls make it, so that replies are the
 * same to the element, ties included.
 *
 * <p>Numerically, by the weight (the element's, or BY's value, as C's strtod reads it; 0 where BY names no value), a
 * tie broken by the elements as binary strings. With ALPHA, by BY's values (an element without one first) or else by
 * the elements: as binary strings for STORE, otherwise as strcoll compares them. redis-server takes LC_COLLATE from
 * its environment; in the C and C.UTF-8 locales (glibc's, which Debian's redis-server runs under) strcoll is strcmp:
 * bytes unsigned, up to the first NUL, which is what this does. DESC turns every comparison around. Only
 * ALPHA with BY has ties between different elements (equal values, or none); their order is the sort's: a stable one
 * (glibc's qsort, a merge sort) for a whole sort, and redis's partial quicksort (pqsort, Bentley and McIlroy's
 * three-way quicksort that leaves alone the parts outside the range) where BY and a LIMIT that leaves elements out
 * meet; {@link #sort} does the same as each.
 */
final class SortOrder
{
    /** An element and what it is compared by. */
    static final class Item
    {
        final byte[] element;
        double score;
        byte[] by;

        Item(final byte[] element)
        {
            this.element = element;
        }
    }

    private SortOrder()
    {
    }

    /**
     * @param alpha      ALPHA: by bytes, not numbers.
     * @param byPattern  BY with a pattern: an ALPHA sort compares the values it names ({@link Item#by}).
     * @param store      STORE: an ALPHA sort compares whole binary strings, not C strings.
     * @param descending DESC.
     * @return sortCompare.
     */
    static Comparator<Item> comparator(final boolean alpha, final boolean byPattern, final boolean store,
        final boolean descending)
    {
        final Comparator<Item> ascending;
        if (!alpha)
        {
            ascending = (a, b) -> a.score > b.score ? 1 : a.score < b.score ? -1 :
                Arrays.compareUnsigned(a.element, b.element);
        }
        else if (byPattern)
        {
            ascending = (a, b) -> a.by == null || b.by == null ? (a.by == b.by ? 0 : a.by == null ? -1 : 1) :
                store ? Arrays.compareUnsigned(a.by, b.by) : cCompare(a.by, b.by);
        }
        else
        {
            ascending = (a, b) -> store ? Arrays.compareUnsigned(a.element, b.element) :
                cCompare(a.element, b.element);
        }
        return descending ? (a, b) -> -ascending.compare(a, b) : ascending;
    }

    /** @return strcmp's sign: unsigned bytes, each string ending at its first NUL. */
    static int cCompare(final byte[] a, final byte[] b)
    {
        for (int i = 0; ; i++)
        {
            final int x = i < a.length ? a[i] & 0xFF : 0;
            final int y = i < b.length ? b[i] & 0xFF : 0;
            if (x != y || x == 0)
            {
                return x - y;
            }
        }
    }

    /**
     * @return the weight redis gives a value in a numeric sort, or null where it answers that a score can't be
     * converted: strtod of the value up to its first NUL must take it all, neither overflow nor underflow (glibc's
     * ERANGE, which a subnormal result sets too, exact or not), nor be NaN. An empty value weighs 0.
     */
    static Double weight(final byte[] value)
    {
        final String text = new String(value, 0, SortPatterns.cLength(value), StandardCharsets.ISO_8859_1);
        final Scores.Parsed parsed = Scores.strtod(text, 0);
        final double weight = parsed.value();
        final boolean subnormal = weight != 0 && Math.abs(weight) < Double.MIN_NORMAL;
        if (parsed.consumed() != text.length() || parsed.outOfRange() || subnormal || Double.isNaN(weight))
        {
            return null;
        }
        return weight;
    }

    /**
     * Sort {@code items} as redis does: the whole of them stably, or (partial) those a range from {@code first} to
     * {@code last} needs, as pqsort does.
     */
    static void sort(final Item[] items, final Comparator<Item> order, final boolean partial, final long first,
        final long last)
    {
        if (partial)
        {
            partialQuicksort(items, 0, items.length, order, first, last);
        }
        else
        {
            Arrays.sort(items, order);
        }
    }

    /**
     * pqsort over {@code items[from, from + count)}: a median pivot (of three, or of three medians of three past 40
     * items), a three-way partition that gathers the items equal to the pivot at both ends and then swaps them into
     * the middle, the parts below and above sorted only where they meet the range {@code [first, last]}, insertion sort
     * under 7 items.
     */
    private static void partialQuicksort(final Item[] items, final int start, final int length,
        final Comparator<Item> order, final long first, final long last)
    {
        int from = start;
        int count = length;
        while (true)
        {
            if (count < 7)
            {
                for (int m = from + 1; m < from + count; m++)
                {
                    for (int l = m; l > from && order.compare(items[l - 1], items[l]) > 0; l--)
                    {
                        swap(items, l, l - 1);
                    }
                }
                return;
            }
            int middle = from + count / 2;
            if (count > 7)
            {
                int low = from;
                int high = from + count - 1;
                if (count > 40)
                {
                    final int d = count / 8;
                    low = median(items, order, low, low + d, low + 2 * d);
                    middle = median(items, order, middle - d, middle, middle + d);
                    high = median(items, order, high - 2 * d, high - d, high);
                }
                middle = median(items, order, low, middle, high);
            }
            swap(items, from, middle);
            int a = from + 1;
            int b = a;
            int c = from + count - 1;
            int d = c;
            while (true)
            {
                int compared;
                while (b <= c && (compared = order.compare(items[b], items[from])) <= 0)
                {
                    if (compared == 0)
                    {
                        swap(items, a++, b);
                    }
                    b++;
                }
                while (b <= c && (compared = order.compare(items[c], items[from])) >= 0)
                {
                    if (compared == 0)
                    {
                        swap(items, c, d--);
                    }
                    c--;
                }
                if (b > c)
                {
                    break;
                }
                swap(items, b++, c--);
            }
            final int end = from + count;
            int moved = Math.min(a - from, b - a);
            swapRuns(items, from, b - moved, moved);
            moved = Math.min(d - c, end - d - 1);
            swapRuns(items, b, end - moved, moved);
            final int below = b - a;
            if (below > 1 && meets(from, from + below - 1, first, last))
            {
                partialQuicksort(items, from, below, order, first, last);
            }
            final int above = d - c;
            if (above <= 1 || !meets(end - above, end - 1, first, last))
            {
                return;
            }
            from = end - above;
            count = above;
        }
    }

    /** @return false when the range lies wholly before or wholly after {@code [low, high]}, as pqsort tests it. */
    private static boolean meets(final int low, final int high, final long first, final long last)
    {
        return !((first < low && last < low) || (first > high && last > high));
    }

    private static int median(final Item[] items, final Comparator<Item> order, final int a, final int b, final int c)
    {
        return order.compare(items[a], items[b]) < 0 ?
            (order.compare(items[b], items[c]) < 0 ? b : (order.compare(items[a], items[c]) < 0 ? c : a)) :
            (order.compare(items[b], items[c]) > 0 ? b : (order.compare(items[a], items[c]) < 0 ? a : c));
    }

    private static void swap(final Item[] items, final int i, final int j)
    {
        final Item held = items[i];
        items[i] = items[j];
        items[j] = held;
    }

    private static void swapRuns(final Item[] items, final int i, final int j, final int count)
    {
        for (int k = 0; k < count; k++)
        {
            swap(items, i + k, j + k);
        }
    }
}
