package io.dkv.cli;

import picocli.CommandLine.IVersionProvider;

/**
 * Reports the version the jar manifest carries; classes run from a build directory have none.
 */
public final class ManifestVersionProvider implements IVersionProvider
{
    public String[] getVersion()
    {
        final String version = DkvMain.class.getPackage().getImplementationVersion();
        return new String[]{"dkv " + (version != null ? version : "(unpackaged build)")};
    }
}
