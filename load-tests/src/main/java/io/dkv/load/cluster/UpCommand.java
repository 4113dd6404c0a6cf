package io.dkv.load.cluster;

import io.dkv.load.process.RoleProcess;
import io.dkv.raas.meta.ClusterSecret;
import org.agrona.IoUtil;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;

/**
 * {@code dkv up}: a local cluster, each role a process of this host, stopped together on Ctrl-C.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
        "Start a local cluster: a MetaServer, memory nodes and a standalone driver, each a process of this host, and " +
            "say how to use it (./dkv put, get, del attach to its driver). Ctrl-C stops them all.",
        "Logs and the MetaServer's data go to --dir, which starts empty each time. The cluster secret, which every " +
            "MetaServer RPC is authenticated with, is generated beside the cluster file on the first start (" +
            UpCommand.SECRET_FILE + ", mode 0600) and kept."
    })
public final class UpCommand implements Callable<Integer>
{
    static final long FIRST_MEMORY_NODE_ID = 101;
    static final String DRIVER_NAME = "dkv-up";
    static final String SECRET_FILE = "cluster-secret";
    private static final Pattern META_READY = Pattern.compile("(?m)^(meta:\\S+)\\s*$");
    private static final Pattern MEMORY_NODE_READY = Pattern.compile("dkv memory node (\\d+) serving .* at ([^;\\s]+);");
    private static final Pattern DRIVER_READY = Pattern.compile("serving node (\\d+) at (\\S+);");

    @Option(names = "--memory-nodes", defaultValue = "2", description = "Memory nodes to start (default: ${DEFAULT-VALUE}).")
    private int memoryNodes;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider: shm (processes of one host) or tcp (over loopback) (default: ${DEFAULT-VALUE}).")
    private String provider;

    @Option(names = "--dir", description = "Where logs and the MetaServer's data go (default: <tmp>/dkv-up).")
    private Path dir;

    @Option(names = "--index-groups", defaultValue = "16384",
        description = "Bucket groups of each memory node's index; each holds 21 keys (default: ${DEFAULT-VALUE}).")
    private int indexGroups;

    @Option(names = "--cluster", paramLabel = "FILE",
        description = "Where to describe the cluster for ./dkv put, get and del (default: <tmp>/dkv-up/cluster.properties).")
    private Path cluster;

    @Option(names = "--heap-chunks", defaultValue = "128",
        description = "2 MiB heap chunks of each memory node (default: ${DEFAULT-VALUE}).")
    private int heapChunks;

    public Integer call() throws Exception
    {
        if (memoryNodes < 1 || memoryNodes > 16)
        {
            throw new IllegalArgumentException("--memory-nodes " + memoryNodes + " is not in [1, 16]");
        }
        final Path clusterPath = cluster != null ? cluster : ClusterFile.defaultPath();
        if (Files.exists(clusterPath))
        {
            final ClusterFile running = ClusterFile.read(clusterPath);
            if (running.isLive())
            {
                System.err.println("dkv up: a local cluster already runs (dkv up is process " + running.upPid() +
                    "); stop it with Ctrl-C there, or kill " + running.upPid());
                return 1;
            }
            Files.delete(clusterPath);
        }
        final Path secretFile = clusterPath.toAbsolutePath().getParent().resolve(SECRET_FILE);
        try
        {
            ClusterSecret.readOrGenerate(secretFile);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("dkv up: " + ex.getMessage());
            return 1;
        }
        final String secret = secretFile.toString();
        final Path runDir = dir != null ? dir : ClusterFile.defaultPath().getParent().resolve("run");
        IoUtil.delete(runDir.toFile(), true);
        Files.createDirectories(runDir);

        final List<RoleProcess> started = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread stopAll = new Thread(() ->
        {
            stop(started, clusterPath);
            stopped.countDown();
        }, "dkv-up-stop");
        Runtime.getRuntime().addShutdownHook(stopAll);
        try
        {
            System.out.println("dkv up: starting a MetaServer, " + memoryNodes + " memory node" + (memoryNodes == 1 ? "" : "s") +
                " and a driver (" + provider + ")...");
            final RoleProcess meta = RoleProcess.start("MetaServer", "256m", Map.of(),
                List.of("meta", "--node-id", "1", "--provider", provider, "--data-dir", runDir.resolve("meta-data").toString(),
                    "--cluster-secret-file", secret),
                META_READY, runDir.resolve("meta.log"));
            started.add(meta);
            final String endpoint = meta.readyGroup(1);
            final long[] nodeIds = new long[memoryNodes];
            final List<RoleProcess> nodes = new ArrayList<>();
            for (int i = 0; i < memoryNodes; i++)
            {
                nodeIds[i] = FIRST_MEMORY_NODE_ID + i;
                final RoleProcess node = RoleProcess.start("memory node " + nodeIds[i], "512m", Map.of(),
                    List.of("memory-node", "--node-id", Long.toString(nodeIds[i]), "--provider", provider, "--meta", endpoint,
                        "--cluster-secret-file", secret,
                        "--index-groups", Integer.toString(indexGroups), "--heap-chunks", Integer.toString(heapChunks),
                        "--data-dir", runDir.resolve("memory-node-" + nodeIds[i] + "-data").toString()),
                    MEMORY_NODE_READY, runDir.resolve("memory-node-" + nodeIds[i] + ".log"));
                started.add(node);
                nodes.add(node);
            }
            final RoleProcess driver = RoleProcess.start("driver", "512m", Map.of(),
                List.of("driver", "--name", DRIVER_NAME, "--provider", provider, "--meta", endpoint, "--cluster-secret-file", secret),
                DRIVER_READY, runDir.resolve("driver.log"));
            started.add(driver);
            new ClusterFile(ProcessHandle.current().pid(), provider, DRIVER_NAME, nodeIds, endpoint, secret).write(clusterPath);
            describe(System.out, meta, endpoint, nodes, driver, runDir, clusterPath);
        }
        catch (final RuntimeException ex)
        {
            System.err.println("dkv up: " + ex.getMessage());
            Runtime.getRuntime().removeShutdownHook(stopAll);
            stop(started, clusterPath);
            return 1;
        }
        stopped.await();
        return 0;
    }

    private static void describe(
        final PrintStream out,
        final RoleProcess meta,
        final String endpoint,
        final List<RoleProcess> nodes,
        final RoleProcess driver,
        final Path runDir,
        final Path clusterPath)
    {
        out.println();
        out.printf("%-14s %-8s %-40s %s%n", "role", "pid", "where", "log");
        out.printf("%-14s %-8d %-40s %s%n", "MetaServer", meta.pid(), shorten(endpoint), meta.log().getFileName());
        for (final RoleProcess node : nodes)
        {
            out.printf("%-14s %-8d %-40s %s%n", "memory node", node.pid(), "node " + node.readyGroup(1) + " at " +
                shorten(node.readyGroup(2)), node.log().getFileName());
        }
        out.printf("%-14s %-8d %-40s %s%n", "driver", driver.pid(), "attach as '" + DRIVER_NAME + "', node " + driver.readyGroup(1),
            driver.log().getFileName());
        out.println();
        out.println("logs in " + runDir + "; cluster described in " + clusterPath);
        out.println("try it (in another terminal):");
        out.println("  ./dkv put greeting hello");
        out.println("  ./dkv get greeting");
        out.println("  ./dkv del greeting");
        out.println("Ctrl-C stops the cluster.");
        out.flush();
    }

    private static String shorten(final String text)
    {
        return text.length() <= 40 ? text : text.substring(0, 37) + "...";
    }

    private static void stop(final List<RoleProcess> started, final Path clusterPath)
    {
        try
        {
            Files.deleteIfExists(clusterPath);
        }
        catch (final java.io.IOException ignore)
        {
            // the next dkv up finds its process gone and removes it
        }
        final List<RoleProcess> reversed;
        synchronized (started)
        {
            reversed = new ArrayList<>(started);
            started.clear();
        }
        Collections.reverse(reversed);
        for (final RoleProcess process : reversed)
        {
            process.close();
        }
        if (!reversed.isEmpty())
        {
            System.out.println("dkv up: stopped " + reversed.size() + " processes");
        }
    }
}
