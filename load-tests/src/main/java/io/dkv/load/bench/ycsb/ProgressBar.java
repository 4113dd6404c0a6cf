package io.dkv.load.bench.ycsb;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * One line on the terminal, rewritten in place (carriage return) as a run goes: what runs, a bar,
 * operations done of all, and the throughput so far.
 */
final class ProgressBar
{
    private static final int WIDTH = 24;

    private final PrintWriter out;
    private int lastLength;

    ProgressBar(final PrintWriter out)
    {
        this.out = out;
    }

    void show(final String label, final long done, final long total, final long elapsedNanos)
    {
        final int filled = total == 0 ? WIDTH : (int)(WIDTH * Math.min(done, total) / total);
        final double opsPerSecond = elapsedNanos > 0 ? done * 1e9 / elapsedNanos : 0;
        final String line = String.format(Locale.ROOT, "%s [%s%s] %,d/%,d ops, %,.0f ops/s",
            label, "#".repeat(filled), "-".repeat(WIDTH - filled), done, total, opsPerSecond);
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    /** Clear the line, so that what is printed next starts on an empty one. */
    void clear()
    {
        if (lastLength > 0)
        {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
        }
    }
}
