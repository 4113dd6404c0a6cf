package io.dkv.load.check.harness;

import io.dkv.raas.meta.ClusterSecret;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The cluster {@code dkv check} tests, as processes: a MetaServer, memory nodes (each with a data
 * directory, so that a killed one comes back with what it acknowledged), the host's driver and the
 * client processes. On test hosts the MetaServer, each memory node, and the driver with the clients
 * get a host each and talk over the tcp provider; otherwise all run here on shm.
 */
final class CheckCluster implements AutoCloseable
{
    private static final Pattern META_READY = Pattern.compile("(?m)^(meta:\\S+)\\s*$");
    private static final Pattern MEMORY_NODE_READY = Pattern.compile("dkv memory node (\\d+) serving");
    private static final Pattern DRIVER_READY = Pattern.compile("serving node (\\d+) at (\\S+);");
    private static final Pattern CLIENT_READY = Pattern.compile(CheckClientCommand.READY);
    private static final long FIRST_MEMORY_NODE_ID = 101;
    private static final int META_PORT = 7400;
    private static final int PROCESSES_PER_CLIENT = 1_000_000;
    private static final int PROCESSES_PER_INCARNATION = 10_000;

    /**
     * What the client processes run.
     *
     * @param concurrency worker threads over all clients.
     * @param rate        operations per second over all clients.
     * @param inject      a deliberately faulty layer between the clients and the store, or "none".
     */
    record Clients(int count, String workload, int keys, int concurrency, double rate, long timeoutMs, String inject, long seed)
    {
    }

    private final Path logs;
    private final Path data;
    private final Path histories;
    private final TestHosts hosts;
    private final int memoryNodes;
    private final Clients clients;
    private final long originNanos;
    private final String provider;
    private final String driverName = "dkv-check-" + ProcessHandle.current().pid();
    private final List<Role> cluster = Collections.synchronizedList(new ArrayList<>());
    private final List<Role> clientRoles = Collections.synchronizedList(new ArrayList<>());
    private final List<Path> historyFiles = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param hosts       test hosts to run on, or null for this host.
     * @param originNanos when the history began, for the clients' clocks.
     */
    CheckCluster(final Path results, final TestHosts hosts, final int memoryNodes, final Clients clients, final long originNanos)
        throws IOException
    {
        this.logs = Files.createDirectories(results.resolve("logs"));
        this.data = Files.createDirectories(results.resolve("data"));
        this.histories = Files.createDirectories(results.resolve("histories"));
        this.hosts = hosts;
        this.memoryNodes = memoryNodes;
        this.clients = clients;
        this.originNanos = originNanos;
        this.provider = hosts == null ? "shm" : "tcp";
    }

    /** Start every role and wait until each says it is ready. */
    void start()
    {
        final Path secretFile = data.resolve("cluster-secret");
        ClusterSecret.readOrGenerate(secretFile);
        final String secret = secretFile.toString();
        final List<String> metaArguments = new ArrayList<>(List.of("meta", "--node-id", "1", "--provider", provider,
            "--data-dir", data.resolve("meta").toString(), "--cluster-secret-file", secret));
        if (hosts != null)
        {
            // a fixed port: a restarted MetaServer must be found where the others know it
            metaArguments.addAll(List.of("--address", hosts.address(0) + ":" + META_PORT));
        }
        final Role meta = new Role("MetaServer", "256m", incarnation -> metaArguments, META_READY, logs, "meta", on(0)).start();
        cluster.add(meta);
        final String endpoint = meta.readyGroup(1);
        final long[] nodeIds = new long[memoryNodes];
        for (int i = 0; i < memoryNodes; i++)
        {
            final long id = FIRST_MEMORY_NODE_ID + i;
            final int host = i + 1;
            nodeIds[i] = id;
            cluster.add(new Role("memory node " + id, "512m",
                incarnation -> List.of("memory-node", "--node-id", Long.toString(id), "--provider", provider, "--meta", endpoint,
                    "--cluster-secret-file", secret,
                    "--address", address(host) + ":0", "--index-groups", "1024", "--heap-chunks", "32",
                    "--data-dir", data.resolve("memory-node-" + id).toString()),
                MEMORY_NODE_READY, logs, "memory-node-" + id, on(host)).start());
        }
        cluster.add(new Role("driver", "512m",
            incarnation -> List.of("driver", "--name", driverName, "--provider", provider, "--meta", endpoint,
                "--cluster-secret-file", secret,
                "--address", address(driverHost()) + ":0"),
            DRIVER_READY, logs, "driver", on(driverHost())).start());
        final String nodes = Arrays.stream(nodeIds).mapToObj(Long::toString).collect(Collectors.joining(","));
        for (int i = 0; i < clients.count(); i++)
        {
            clientRoles.add(client(i, nodes).start());
        }
    }

    private Role client(final int client, final String nodes)
    {
        final int threads = clients.concurrency() / clients.count() + (client < clients.concurrency() % clients.count() ? 1 : 0);
        return new Role("client " + client, "256m", incarnation ->
        {
            final Path history = histories.resolve("client-" + client + "." + incarnation + ".jsonl");
            historyFiles.add(history);
            return List.of("check-client", "--driver", driverName, "--memory-nodes", nodes, "--workload", clients.workload(),
                "--keys", Integer.toString(clients.keys()), "--threads", Integer.toString(threads),
                "--rate", Double.toString(clients.rate() * threads / clients.concurrency()),
                "--process-base", Integer.toString(client * PROCESSES_PER_CLIENT + incarnation * PROCESSES_PER_INCARNATION),
                "--origin-nanos", Long.toString(originNanos), "--history", history.toString(),
                "--timeout-ms", Long.toString(clients.timeoutMs()), "--inject", clients.inject(),
                "--seed", Long.toString(clients.seed() * 7919 + client * 31L + incarnation));
        }, CLIENT_READY, logs, "client-" + client, on(driverHost()));
    }

    String driverName()
    {
        return driverName;
    }

    /** @return every role, the nemesis's targets. */
    List<Role> roles()
    {
        final List<Role> roles = new ArrayList<>(cluster);
        roles.addAll(clientRoles);
        return roles;
    }

    /** @return what runs on each test host, by host number. */
    List<String> hostNames()
    {
        final List<String> names = new ArrayList<>();
        for (int host = 0; host <= driverHost(); host++)
        {
            names.add(host == 0 ? "MetaServer" : host == driverHost() ? "driver and clients" : cluster.get(host).name());
        }
        return names;
    }

    /** @return the clients' history files, one per client incarnation, those written so far. */
    List<Path> historyFiles()
    {
        synchronized (historyFiles)
        {
            return historyFiles.stream().filter(Files::exists).toList();
        }
    }

    /** Stop the clients first (their last operations still find the cluster), then the cluster, then the hosts. */
    public void close()
    {
        for (final Role role : roles(clientRoles))
        {
            role.stop();
        }
        final List<Role> roles = roles(cluster);
        for (int i = roles.size() - 1; i >= 0; i--)
        {
            roles.get(i).stop();
        }
        if (hosts != null)
        {
            hosts.close();
        }
    }

    private static List<Role> roles(final List<Role> roles)
    {
        synchronized (roles)
        {
            return List.copyOf(roles);
        }
    }

    // hosts: the MetaServer, each memory node, then the driver with the clients
    private int driverHost()
    {
        return memoryNodes + 1;
    }

    private String address(final int host)
    {
        return hosts == null ? "127.0.0.1" : hosts.address(host);
    }

    private List<String> on(final int host)
    {
        return hosts == null ? List.of() : hosts.exec(host);
    }
}
