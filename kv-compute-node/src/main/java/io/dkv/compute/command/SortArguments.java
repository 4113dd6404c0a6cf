package io.dkv.compute.command;

import io.dkv.compute.resp.RespNumbers;

import java.util.ArrayList;
import java.util.List;

import static io.dkv.compute.command.CommandTable.isCString;

/**
 * SORT's and SORT_RO's options as redis 7.0's sortCommandGeneric reads them, left to right and in its order (each word
 * as C's strcasecmp compares it, up to a NUL byte): ASC,
 * DESC and ALPHA anywhere, LIMIT with two integers, STORE (SORT only) and BY with one argument, GET as often as given;
 * a later LIMIT, STORE or BY replaces an earlier one. A word that is none of these, or one without the arguments it
 * takes, is a syntax error; a LIMIT whose numbers are not integers is redis's integer error, and parsing stops at the
 * first error. A BY pattern without {@code *} (as C reads it: up to its first NUL byte) names no key per element, so
 * nothing is sorted ({@link #dontSort}), whatever BY follows it.
 *
 * @param error      the error to answer, or null when the options are all good.
 * @param descending DESC was the last of ASC and DESC.
 * @param alpha      ALPHA was given.
 * @param limitStart LIMIT's offset (0 without LIMIT).
 * @param limitCount LIMIT's count (-1 without LIMIT: every element).
 * @param store      STORE's destination, or null.
 * @param by         BY's pattern, or null.
 * @param dontSort   BY's pattern has no {@code *}: elements keep the order they have.
 * @param gets       GET's patterns, in order.
 */
record SortArguments(String error, boolean descending, boolean alpha, long limitStart, long limitCount, byte[] store,
    byte[] by, boolean dontSort, List<byte[]> gets)
{
    /**
     * @param args     the request: SORT or SORT_RO, the key, then options.
     * @param readOnly true for SORT_RO, where STORE is no option (a syntax error).
     */
    static SortArguments parse(final byte[][] args, final boolean readOnly)
    {
        boolean descending = false;
        boolean alpha = false;
        long limitStart = 0;
        long limitCount = -1;
        byte[] store = null;
        byte[] by = null;
        boolean dontSort = false;
        final List<byte[]> gets = new ArrayList<>();
        for (int j = 2; j < args.length; j++)
        {
            final int left = args.length - j - 1;
            if (isCString(args[j], "asc"))
            {
                descending = false;
            }
            else if (isCString(args[j], "desc"))
            {
                descending = true;
            }
            else if (isCString(args[j], "alpha"))
            {
                alpha = true;
            }
            else if (isCString(args[j], "limit") && left >= 2)
            {
                if (!RespNumbers.isLong(args[j + 1]) || !RespNumbers.isLong(args[j + 2]))
                {
                    return refused(Errors.NOT_INTEGER);
                }
                limitStart = RespNumbers.parseLong(args[j + 1]);
                limitCount = RespNumbers.parseLong(args[j + 2]);
                j += 2;
            }
            else if (!readOnly && isCString(args[j], "store") && left >= 1)
            {
                store = args[++j];
            }
            else if (isCString(args[j], "by") && left >= 1)
            {
                by = args[++j];
                // as redis: once a BY without a star was given, a later BY with one does not sort again
                dontSort |= SortPatterns.star(by) < 0;
            }
            else if (isCString(args[j], "get") && left >= 1)
            {
                gets.add(args[++j]);
            }
            else
            {
                return refused(Errors.SYNTAX);
            }
        }
        return new SortArguments(null, descending, alpha, limitStart, limitCount, store, by, dontSort, gets);
    }

    private static SortArguments refused(final String error)
    {
        return new SortArguments(error, false, false, 0, -1, null, null, false, List.of());
    }
}
