package io.dkv.load.bench.suite;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one run of redis's {@code runtest} printed for a test file: the tests that passed, failed (with the first line
 * of why) and were skipped by tag. Redis prints {@code [ok]: name (n ms)}, {@code [err]: name in file} followed by
 * the error, {@code [exception]: ...} for a test that stopped the file, and {@code [ignore]: name: reason} or
 * {@code [skip]} for one left out.
 *
 * @param passed   names of the tests that passed.
 * @param failed   each failed test's name and the first line that says why.
 * @param skipped  how many were left out by the tags given.
 * @param finished false when the file did not run to its end (an exception, or the time ran out).
 */
public record SuiteOutput(List<String> passed, List<String[]> failed, int skipped, boolean finished)
{
    private static final Pattern COLOUR = Pattern.compile("\u001b\\[[0-9;]*m");
    private static final Pattern OK = Pattern.compile("^\\[ok]: (.*?)(?: \\(\\d+ ms\\))?$");
    private static final Pattern ERR = Pattern.compile("^\\[err]: (.*?)(?: in tests/.*)?$");
    private static final Pattern SKIP = Pattern.compile("^\\[(?:ignore|skip)]: .*");

    /** @return the run's tests, read from what it printed. */
    public static SuiteOutput parse(final String printed)
    {
        final String[] lines = COLOUR.matcher(printed).replaceAll("").split("\r?\n");
        final List<String> passed = new ArrayList<>();
        final List<String[]> failed = new ArrayList<>();
        int skipped = 0;
        boolean finished = false;
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i];
            final Matcher ok = OK.matcher(line);
            final Matcher err = ERR.matcher(line);
            if (line.startsWith("!!! WARNING The following tests failed"))
            {
                // redis repeats the failures at the end: counted once
                break;
            }
            if (ok.matches())
            {
                passed.add(ok.group(1));
            }
            else if (err.matches())
            {
                failed.add(new String[]{err.group(1), reason(lines, i + 1)});
            }
            else if (line.startsWith("[exception]:"))
            {
                failed.add(new String[]{"(the file stopped)", reason(lines, i)});
            }
            else if (SKIP.matcher(line).matches())
            {
                skipped++;
            }
            finished |= line.contains("All tests passed") || line.startsWith("[1/1 done]");
        }
        return new SuiteOutput(passed, failed, skipped, finished || printed.contains("[1/1 done]"));
    }

    /**
     * @return the line after a failure that says most of why: an expectation missed, else the server's error (the
     * harness repeats it, first cut short), else any line about an error.
     */
    private static String reason(final String[] lines, final int from)
    {
        final int to = Math.min(lines.length, from + 4);
        for (int i = from; i < to; i++)
        {
            final String line = lines[i].strip();
            if (line.startsWith("Expected") || line.startsWith("assertion:"))
            {
                return shortened(line);
            }
        }
        for (int i = from; i < to; i++)
        {
            final String line = lines[i].strip();
            if (line.startsWith("ERR ") || line.startsWith("WRONGTYPE ") || line.startsWith("NOAUTH "))
            {
                return shortened(line);
            }
        }
        for (int i = from; i < to; i++)
        {
            final String line = lines[i].strip();
            if (line.contains("error") || line.contains("ERR "))
            {
                return shortened(line);
            }
        }
        return "";
    }

    private static String shortened(final String line)
    {
        return line.length() > 160 ? line.substring(0, 160) + "..." : line;
    }
}
