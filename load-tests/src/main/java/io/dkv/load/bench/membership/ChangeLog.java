package io.dkv.load.bench.membership;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the driver of a membership change (the joining memory node, or the drain command) printed about it, as
 * {@code MembershipChangeDriver} prints it: the wait before each phase, each fill and handover pass, and the total.
 *
 * @param gapMs        the waits before the phases, together: they do not grow with the data.
 * @param fillPasses   fill passes run.
 * @param fillMs       the fill passes' time together: copying the moving keys.
 * @param keysCopied   keys the fill passes copied (or cleared) onto the entering members.
 * @param keysInPlace  moving keys the fill passes found right on the entering members already: written there by
 *                     clients during fill, or (a drain) still held from before the node they move off joined.
 * @param handoverMs   the handover passes' time together: sealing the moving keys.
 * @param totalMs      the whole change as the driver timed it, from its first look at the membership.
 */
record ChangeLog(long gapMs, int fillPasses, long fillMs, long keysCopied, long keysInPlace,
    long handoverMs, long totalMs)
{
    private static final Pattern WAIT = Pattern.compile(
        "membership change in phase (\\w+) \\(epoch \\d+\\): waiting ([\\d,.]+) ms");
    private static final Pattern PASS = Pattern.compile("(fill|handover) pass \\d+: [\\d,.]+ keys seen, ([\\d,.]+) " +
        "(?:copied or cleared|sealed), ([\\d,.]+) (?:in place|sealed before), [\\d,.]+ unsettled, ([\\d,.]+) ms");
    private static final Pattern DONE = Pattern.compile("membership change done in ([\\d,.]+) ms");
    private static final Pattern FAILED = Pattern.compile("membership change (aborted|failed|interrupted)[^\\n]*");

    /**
     * @param output what the driver printed.
     * @return the figures, or null while the change has not printed its end.
     * @throws IllegalStateException when the change was aborted or failed, with what it said.
     */
    static ChangeLog parse(final String output)
    {
        final Matcher failed = FAILED.matcher(output);
        if (failed.find())
        {
            throw new IllegalStateException(failed.group());
        }
        final Matcher done = DONE.matcher(output);
        if (!done.find())
        {
            return null;
        }
        long gapMs = 0;
        final Matcher wait = WAIT.matcher(output);
        while (wait.find())
        {
            gapMs += number(wait.group(2));
        }
        int fillPasses = 0;
        long fillMs = 0;
        long keysCopied = 0;
        long keysInPlace = 0;
        long handoverMs = 0;
        final Matcher pass = PASS.matcher(output);
        while (pass.find())
        {
            if ("fill".equals(pass.group(1)))
            {
                fillPasses++;
                keysCopied += number(pass.group(2));
                keysInPlace += number(pass.group(3));
                fillMs += number(pass.group(4));
            }
            else
            {
                // the handover seals the moving keys (rolling forward writes whose writers died): no copying
                handoverMs += number(pass.group(4));
            }
        }
        return new ChangeLog(gapMs, fillPasses, fillMs, keysCopied, keysInPlace, handoverMs, number(done.group(1)));
    }

    /** The driver prints with its locale's grouping: the digits alone are the number. */
    private static long number(final String grouped)
    {
        return Long.parseLong(grouped.replaceAll("\\D", ""));
    }
}
