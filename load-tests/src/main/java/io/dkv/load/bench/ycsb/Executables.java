package io.dkv.load.bench.ycsb;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the machine's programs the benchmark starts.
 */
public final class Executables
{
    private Executables()
    {
    }

    /** @return the program on the PATH (or in /usr/bin, /usr/sbin, /usr/local/bin), if one is installed. */
    public static Optional<Path> find(final String name)
    {
        final List<String> directories =
            new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        directories.addAll(List.of("/usr/bin", "/usr/sbin", "/usr/local/bin"));
        return directories.stream()
            .filter(directory -> !directory.isEmpty())
            .map(directory -> Path.of(directory, name))
            .filter(Files::isExecutable)
            .findFirst();
    }
}
