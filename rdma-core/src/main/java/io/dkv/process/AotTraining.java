package io.dkv.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The side a dkv process takes in the launcher's JDK AOT training (the {@code dkv} script, {@code aot_flags}): a run
 * that trains a cache marks, once it has done its job (a compute node serving, a command reaching the store), that
 * it did, in the file a system property names; the launcher assembles a cache only from a run so marked, as one from
 * a run that failed at once would hold little and serve every later start.
 */
public final class AotTraining
{
    private AotTraining()
    {
    }

    /**
     * Mark this run served, where the launcher asked for the mark ({@code propertyName} set); else nothing.
     *
     * @param propertyName the system property naming the marker file.
     */
    public static void markServed(final String propertyName)
    {
        final String marker = System.getProperty(propertyName);
        if (marker != null)
        {
            try
            {
                Files.writeString(Path.of(marker), "served\n");
            }
            catch (final IOException ex)
            {
                // without the mark the launcher only trains again: nothing is lost
            }
        }
    }
}
