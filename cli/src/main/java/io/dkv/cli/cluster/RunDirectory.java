package io.dkv.cli.cluster;

import org.agrona.IoUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The directory {@code ./dkv up} runs a cluster in: its logs, the MetaServer's data and each memory node's keys. Kept
 * from one start to the next, as redis keeps its dump and its append-only file: a cluster stopped (or killed) and
 * started again on it comes back with what its disks hold. Emptied only when asked ({@code --fresh}).
 */
final class RunDirectory
{
    /** What the MetaServer keeps its records in, under the run directory: present once a cluster ran there. */
    static final String META_DATA = "meta-data";

    private RunDirectory()
    {
    }

    /**
     * Make the run directory ready: emptied when {@code fresh}, made when missing, else kept as it is.
     *
     * @return the line that tells the user which it was.
     */
    static String prepare(final Path runDir, final boolean fresh)
    {
        try
        {
            final boolean ranBefore = Files.isDirectory(runDir.resolve(META_DATA));
            if (fresh && Files.exists(runDir))
            {
                IoUtil.delete(runDir.toFile(), false);
            }
            Files.createDirectories(runDir);
            if (fresh)
            {
                return "dkv up: --fresh: emptied " + runDir + (ranBefore ? ", and every key of the cluster that ran " +
                    "there with it" : "") + "; starting a new cluster";
            }
            return ranBefore ?
                "dkv up: " + runDir + " holds the cluster that ran there before: starting it again with the keys its " +
                "disks hold (--fresh starts a new one instead)" :
                "dkv up: starting a new cluster in " + runDir + " (kept when it stops: started again on it, it comes " +
                "back with its keys)";
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make the run directory " + runDir + ": " + ex.getMessage(), ex);
        }
    }
}
