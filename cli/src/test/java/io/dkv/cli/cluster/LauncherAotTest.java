package io.dkv.cli.cluster;

import io.dkv.process.RoleProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code dkv} launcher's JDK AOT caches: a compute node that fails at once trains none and prints nothing of the
 * JDK's AOT, and a compute node that served, or a {@code put} that reached the store, leads to a cache that later
 * starts run with. The script runs itself, from a copy of this checkout's launcher in a home of its own whose JARs
 * are this test's class path (so that it neither builds nor touches the checkout's caches).
 */
class LauncherAotTest
{
    /** Long enough for any machine: what is checked is that it ends well, never how fast. */
    private static final long TIMEOUT_MS = 180_000;
    private static final String NOBODY = "meta:1@shm:0123456789abcdef#00002001:0123456789abcdef";

    @Test
    void aComputeNodeThatFailsAtOnceLeavesNoCacheAndPrintsNoAotLines(@TempDir final Path dir) throws Exception
    {
        final Path home = launcherHome(dir.resolve("home"));
        final Launched failed = launch(home, dir, "compute-node", "--port", "0", "--meta", NOBODY,
            "--cluster-secret-file", dir.resolve("absent").toString());

        assertEquals(1, failed.status(), failed::output);
        assertEquals(1, failed.output().strip().lines().count(), "its error alone: " + failed.output());
        assertTrue(failed.output().startsWith("dkv compute-node: "), failed::output);
        assertNoAotLines(failed);
        assertFalse(Files.exists(aot(home, "compute-node.aot")), "no cache from a run that never served");

        assertEquals(0, launch(home, dir, "get", "--help").status());
        try (Stream<Path> left = Files.list(aotDir(home)))
        {
            assertEquals(List.of(), left.map(path -> path.getFileName().toString())
                .filter(name -> name.startsWith("compute-node")).toList(),
                "the next start dropped what the run recorded, so that a later start trains again");
        }
    }

    @Test
    void aServedComputeNodeAndAPutThatReachedTheStoreLeadToCachesThatLaterStartsUse(@TempDir final Path dir)
        throws Exception
    {
        final Path home = launcherHome(dir.resolve("home"));
        final Path clusterFile = dir.resolve("cluster.properties");
        final RoleProcess up = LocalClusterTest.up(dir, clusterFile);
        try
        {
            final ClusterFile cluster = ClusterFile.read(clusterFile);
            final Path log = dir.resolve("compute-node.log");
            assertEquals(0, serveAndStop(home, log, "serving RESP on", "compute-node", "--port", "0", "--meta",
                cluster.meta(), "--cluster-secret-file", cluster.secretFile()), () -> read(log));

            final String clusterOption = "--cluster=" + clusterFile;
            final Launched put = launch(home, dir, "put", clusterOption, "greeting", "hello");
            assertEquals("OK", put.output().strip(), "the start after the served run, which trains put, get, del");
            awaitFile(aot(home, "compute-node.aot"));

            final Launched get = launch(home, dir, "get", clusterOption, "greeting");
            assertEquals("hello", get.output().strip());
            awaitFile(aot(home, "cli.aot"));

            final Launched cached = launch(home, dir, "get", clusterOption, "greeting");
            assertEquals("hello", cached.output().strip(), "a get with the cache answers as one without");
            assertNoAotLines(cached);
        }
        finally
        {
            assertEquals(0, up.stop(TIMEOUT_MS), "dkv up stops cleanly on SIGTERM");
        }
    }

    /** What a run of the launcher printed (stdout and stderr together) and its exit status. */
    private record Launched(int status, String output)
    {
    }

    private static void assertNoAotLines(final Launched launched)
    {
        for (final String jdkSays : List.of("AOTConfiguration", "AOTCache", "[aot]", "[cds]", "AOT cache"))
        {
            assertFalse(launched.output().contains(jdkSays), () -> "'" + jdkSays + "' in: " + launched.output());
        }
    }

    private static Path aotDir(final Path home)
    {
        return home.resolve("target").resolve("aot");
    }

    private static Path aot(final Path home, final String name)
    {
        return aotDir(home).resolve(name);
    }

    private static Process start(final Path home, final Path log, final String... arguments) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of("bash", home.resolve("dkv").toString()));
        command.addAll(List.of(arguments));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        final Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("DKV_"));
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        return builder.start();
    }

    private static Launched launch(final Path home, final Path dir, final String... arguments) throws Exception
    {
        final Path log = Files.createTempFile(dir, "launch", ".log");
        final Process process = start(home, log, arguments);
        if (!process.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
        }
        return new Launched(process.waitFor(), read(log));
    }

    /**
     * A node started through the launcher, once it says {@code line} stopped as Ctrl-C stops it: a training run that
     * served and ended, which printed nothing of the JDK's AOT.
     *
     * @return its exit status.
     */
    private static int serveAndStop(final Path home, final Path log, final String line, final String... arguments)
        throws Exception
    {
        final Process node = start(home, log, arguments);
        awaitLine(node, log, line);
        node.destroy();
        assertTrue(node.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS), () -> read(log));
        assertNoAotLines(new Launched(0, read(log)));
        return node.exitValue();
    }

    private static void awaitLine(final Process process, final Path log, final String line) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!read(log).contains(line))
        {
            assertTrue(process.isAlive() && System.nanoTime() - deadline < 0, () -> "no '" + line + "': " + read(log));
            Thread.sleep(50);
        }
    }

    /** The cache is assembled in the background of the start that found a served run's configuration. */
    private static void awaitFile(final Path file) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!Files.exists(file))
        {
            assertTrue(System.nanoTime() - deadline < 0, () -> file + " never made; in " + file.getParent() + ": " +
                listing(file.getParent()));
            Thread.sleep(50);
        }
    }

    private static String listing(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.map(path -> path.getFileName().toString()).sorted().toList().toString();
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    /**
     * A home for the launcher as a build leaves it: the script and the root pom (its JVM flags) of this checkout,
     * {@code cli/target/cli-*.jar} and {@code classpath.txt} of JARs (a cache needs JARs: this test's class path,
     * its directories made JARs), and a build stamp newer than all of it, so that it does not build.
     */
    private static Path launcherHome(final Path home) throws IOException
    {
        final Path checkout = Path.of("").toAbsolutePath().getParent();
        Files.createDirectories(home.resolve("cli").resolve("target"));
        Files.copy(checkout.resolve("dkv"), home.resolve("dkv"));
        Files.copy(checkout.resolve("pom.xml"), home.resolve("pom.xml"));
        final List<String> classPath = new ArrayList<>();
        int jars = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry);
            if (!Files.isDirectory(path))
            {
                classPath.add(entry);
            }
            else if (path.endsWith(Path.of("cli", "target", "classes")))
            {
                jar(path, home.resolve("cli").resolve("target").resolve("cli-test.jar"));
            }
            else
            {
                final Path jar = home.resolve("jars").resolve(jars++ + ".jar");
                jar(path, jar);
                classPath.add(jar.toString());
            }
        }
        Files.writeString(home.resolve("cli").resolve("target").resolve("classpath.txt"),
            String.join(File.pathSeparator, classPath));
        Files.setLastModifiedTime(home.resolve("pom.xml"), FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Files.createDirectories(home.resolve("target"));
        Files.writeString(home.resolve("target").resolve("build.stamp"), "");
        return home;
    }

    private static void jar(final Path classes, final Path jar) throws IOException
    {
        Files.createDirectories(jar.getParent());
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream stream = new JarOutputStream(out);
            Stream<Path> files = Files.walk(classes))
        {
            for (final Path file : files.filter(Files::isRegularFile).sorted().toList())
            {
                stream.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, stream);
                stream.closeEntry();
            }
        }
    }
}
