package io.dkv.verbs.shm;

import io.dkv.verbs.Device;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsProvider;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code shm} provider: devices whose peers live on the same host.
 */
public final class ShmProvider implements VerbsProvider
{
    public String name()
    {
        return PortAddress.SHM;
    }

    public String unavailableReason(final VerbsContext context)
    {
        final Path dir = context.shmDirectory();
        if (!Files.isDirectory(dir) || !Files.isWritable(dir))
        {
            return "shm directory " + dir + " is missing or not writable (set -Ddkv.verbs.shm.dir)";
        }
        return null;
    }

    public Device open(final VerbsContext context)
    {
        return new ShmDevice(context);
    }
}
