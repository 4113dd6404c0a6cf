package io.dkv.verbs.ibv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Compiles the C a test needs against the installed rdma-core headers; the test is skipped, saying why, where there
 * is no C compiler or no headers (.ci/run installs gcc and libibverbs-dev).
 */
final class CCompiler
{
    static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    private CCompiler()
    {
    }

    /**
     * @param name   the output's name.
     * @param source the C source.
     * @param shared whether to build a shared library (else a program).
     * @return the built file, in a fresh temporary directory.
     */
    static Path compile(final String name, final String source, final boolean shared) throws Exception
    {
        assumeTrue(Files.exists(HEADER), "no " + HEADER + ": install libibverbs-dev to build " + name);
        final Path dir = Files.createTempDirectory("ibv-" + name);
        final Path file = dir.resolve(name + ".c");
        final Path output = dir.resolve(shared ? "lib" + name + ".so" : name);
        Files.writeString(file, source);
        final List<String> command = new ArrayList<>(List.of("cc", "-Wall", "-o", output.toString()));
        if (shared)
        {
            command.addAll(List.of("-shared", "-fPIC", "-O1"));
        }
        command.add(file.toString());
        final Process compile;
        try
        {
            compile = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            assumeTrue(false, "no C compiler (cc): install gcc to build " + name + " (" + ex.getMessage() + ")");
            return null;
        }
        final String out = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "cc did not finish building " + name);
        assertEquals(0, compile.exitValue(), () -> name + " did not compile:\n" + out);
        return output;
    }
}
