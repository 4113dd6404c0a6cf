package io.dkv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code dkv} script's build shows its progress: a line for each module as Maven's log names it ({@code [INFO]
 * Building NAME VERSION [n/N]}), and on a failure the end of the log. The script runs from a copy of it, so that it
 * builds nothing of this tree, with a stand-in {@code mvn} first on the PATH (the script finds Maven there).
 */
class DkvScriptBuildTest
{
    private static final long SCRIPT_TIMEOUT_S = 120;

    @TempDir
    Path dir;

    private static Path repositoryRoot()
    {
        for (Path path = Path.of("").toAbsolutePath(); path != null; path = path.getParent())
        {
            if (Files.isDirectory(path.resolve("deploy")) && Files.isRegularFile(path.resolve("dkv")))
            {
                return path;
            }
        }
        throw new IllegalStateException("no repository root (with deploy/ and dkv) above " +
            Path.of("").toAbsolutePath());
    }

    /** @return what {@code dkv build} wrote to stderr, run with an {@code mvn} that prints {@code lines}. */
    private String build(final int mavenExit, final List<String> lines) throws IOException, InterruptedException
    {
        final Path home = Files.createDirectories(dir.resolve("home"));
        Files.copy(repositoryRoot().resolve("dkv"), home.resolve("dkv"));
        final Path bin = Files.createDirectories(dir.resolve("bin"));
        final Path output = dir.resolve("maven-output.txt");
        Files.write(output, lines);
        final Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\ncat '" + output + "'\nexit " + mavenExit + "\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        final ProcessBuilder builder = new ProcessBuilder("bash", home.resolve("dkv").toString(), "build")
            .redirectOutput(dir.resolve("stdout.txt").toFile())
            .redirectError(dir.resolve("stderr.txt").toFile());
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        final Process process = builder.start();
        assertTrue(process.waitFor(SCRIPT_TIMEOUT_S, TimeUnit.SECONDS), "dkv build ended");
        final String err = Files.readString(dir.resolve("stderr.txt"), StandardCharsets.UTF_8);
        assertEquals(mavenExit == 0 ? 0 : 1, process.exitValue(), err);
        return err;
    }

    @Test
    void eachModuleIsALineAsMavenReachesIt() throws Exception
    {
        final String err = build(0, List.of("[INFO] Scanning for projects...",
            "[INFO] --------------------------------< io.dkv:dkv >---------------------------------",
            "[INFO] Building dkv 0.1.0-SNAPSHOT                                       [1/3]",
            "[INFO] Building rdma-core 0.1.0-SNAPSHOT                                 [2/3]",
            "[INFO] Compiling 412 source files",
            "[INFO] Building cli 0.1.0-SNAPSHOT                                       [3/3]",
            "[INFO] BUILD SUCCESS"));
        assertEquals(List.of("dkv: building dkv (1/3)", "dkv: building rdma-core (2/3)", "dkv: building cli (3/3)"),
            err.lines().filter(line -> line.startsWith("dkv: building ") && line.endsWith(")") &&
                !line.contains("first use")).toList(), err);
        assertTrue(err.lines().findFirst().orElse("").contains("target/build.log"), "names the log: " + err);
        assertTrue(!err.contains("Compiling"), "Maven's own lines stay in the log: " + err);
    }

    @Test
    void aFailedBuildShowsTheEndOfTheLog() throws Exception
    {
        final String err = build(1, List.of("[INFO] Building dkv 0.1.0-SNAPSHOT                          [1/2]",
            "[ERROR] Foo.java:[3,1] ';' expected", "[INFO] BUILD FAILURE"));
        assertTrue(err.contains("dkv: building dkv (1/2)"), err);
        assertTrue(err.contains("dkv: build failed (Maven exited with 1); last lines of"), err);
        assertTrue(err.contains("[ERROR] Foo.java:[3,1] ';' expected"), err);
    }
}
