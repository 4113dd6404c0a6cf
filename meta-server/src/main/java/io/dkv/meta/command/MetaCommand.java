package io.dkv.meta.command;

import io.dkv.agent.CountersFile;
import io.dkv.agent.CountersStat;
import io.dkv.agent.ErrorFile;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.command.ClusterSecretOption;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.VerbsConfiguration;
import io.dkv.verbs.VerbsContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code dkv meta}: start a MetaServer, print its endpoint, and serve until Ctrl-C.
 */
@Command(
    name = "meta",
    mixinStandardHelpOptions = true,
    description = {
        "Run a MetaServer: node and region metadata that nodes read with one-sided RDMA, durable in RocksDB.",
        "Prints the endpoint nodes need (also written to <data-dir>/endpoint) and serves until Ctrl-C.",
        "Two servers replicate each other: start A, start B with --peer <A's endpoint>, restart A with --peer <B's>",
        "(an endpoint stays the same across restarts when the address is fixed).",
        "Every RPC is authenticated with the cluster secret (--cluster-secret-file); evict and withdraw remove " +
            "records as an operator; members prints the memory tier's membership a running server publishes."
    },
    subcommands = {MetaMembersCommand.class, MetaChangeCommand.class, MetaEvictCommand.class,
        MetaWithdrawCommand.class})
public final class MetaCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    ClusterSecretOption secret;

    @Option(names = "--node-id", defaultValue = "1",
        description = "The server's node id, fixed across restarts (default: ${DEFAULT-VALUE}).")
    long nodeId;

    @Option(names = "--provider", defaultValue = "shm",
        description = "Verbs provider: shm (one host), tcp, verbs (an RNIC) or auto (verbs where an RNIC is " +
            "usable, else shm) (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--address", description = {
        "tcp: ip:port to listen on (a fixed port keeps the endpoint across restarts; default 127.0.0.1:0, a new port " +
            "each start).",
        "shm: the device id in hex (default: drawn at the first start and kept in the data directory)."})
    String address;

    @Option(names = "--errors",
        description = "Print the errors the MetaServers of this host recorded (each distinct one with how often and " +
            "when it was seen), those running and those that stopped after recording some, or with --node-id that " +
            "server's only, and exit; the servers run on undisturbed.")
    boolean errors;

    @Option(names = "--counters",
        description = "Print the counters of the MetaServers running on this host (RPCs served by kind, refusals, " +
            "errors, ..., and those of each one's driver), or with --node-id that server's only, one line each: id, " +
            "label, value; read from their counters files, and exit; the servers run on undisturbed.")
    boolean counters;

    @Option(names = "--data-dir", description = "RocksDB store and endpoint file (default: dkv-meta-<node id>).")
    Path dataDir;

    @Option(names = "--lease-ms", defaultValue = "" + MetaServerConfiguration.LEASE_MS_DEFAULT,
        description = "How long a node stays registered without renewing, in ms (default: ${DEFAULT-VALUE}).")
    int leaseMs;

    @Option(names = "--lease-check-ms", defaultValue = "" + MetaServerConfiguration.LEASE_CHECK_MS_DEFAULT,
        description = "How often leases are checked, in ms (default: ${DEFAULT-VALUE}).")
    int leaseCheckMs;

    @Option(names = "--peer", description = "Endpoint of the other MetaServer, which every write is replicated to.")
    String peer;

    @Option(names = "--node-slots", defaultValue = "" + MetaServerConfiguration.NODE_SLOTS_DEFAULT,
        description = "Slots of the node table, a power of two (default: ${DEFAULT-VALUE}).")
    int nodeSlots;

    @Option(names = "--region-slots", defaultValue = "" + MetaServerConfiguration.REGION_SLOTS_DEFAULT,
        description = "Slots of the region table, a power of two (default: ${DEFAULT-VALUE}).")
    int regionSlots;

    @Option(names = "--replicas", paramLabel = "R",
        description = {"Copies of each key the memory nodes keep, 1 to " + MetaServerConfiguration.REPLICAS_MAX +
            "; a key lives on min(R, members) of them.",
            "Kept in the data directory: the first start keeps R (default " + MetaServerConfiguration.REPLICAS_DEFAULT +
                "), a later start changes it only when given."})
    Integer replicas;

    @Option(names = "--founders", paramLabel = "ID[,ID...]", split = ",",
        description = {"The memory nodes that found the store, started without --join: until all of them have " +
            "registered (or a membership change begins) only they found it; once it is founded a memory node that " +
            "is no member must start with --join (keys move to it) and is refused otherwise.",
            "Without it the first memory node to register founds the store alone. Kept in the data directory once " +
                "the store is founded: a later start's list is ignored."})
    long[] founders;

    /**
     * @return the server's settings as the options give them.
     * @throws ParameterException naming the option that cannot be used.
     */
    MetaServerContext context()
    {
        final MetaServerContext context = new MetaServerContext()
            .nodeId(nodeId)
            .dataDir(dataDir != null ? dataDir : Path.of("dkv-meta-" + nodeId))
            .leaseMs(leaseMs)
            .leaseCheckMs(leaseCheckMs)
            .nodeSlots(nodeSlots)
            .regionSlots(regionSlots);
        if (replicas != null)
        {
            context.replicas(replicas);
        }
        if (founders != null)
        {
            context.founders(founders);
        }
        if (secret.file() == null)
        {
            throw new ParameterException(spec.commandLine(),
                "--cluster-secret-file is required: the file with the cluster secret every MetaServer RPC is " +
                "authenticated with (./dkv up writes one)");
        }
        context.clusterSecretFile(secret.file());
        context.raas().verbs().provider(provider);
        switch (provider)
        {
            case PortAddress.TCP -> context.raas().verbs().tcpAddress(address != null ? address : "127.0.0.1:0");
            case PortAddress.SHM ->
            {
                if (address != null)
                {
                    context.raas().verbs().shmDeviceId(parseDeviceId(address));
                }
            }
            case PortAddress.VERBS, VerbsConfiguration.PROVIDER_AUTO ->
            {
                // the RNIC, its port and GID come from the dkv.verbs.ibv.* properties
            }
            default -> throw new ParameterException(spec.commandLine(),
                "--provider must be shm, tcp, verbs or auto, not '" + provider + "'");
        }
        if (peer != null)
        {
            try
            {
                context.peer(MetaEndpoint.parse(peer));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ParameterException(spec.commandLine(), "--peer: " + ex.getMessage());
            }
        }
        try
        {
            return context.conclude();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
    }

    private long parseDeviceId(final String text)
    {
        try
        {
            return HexFormat.fromHexDigitsToLong(text.startsWith("shm:") ? text.substring(4) : text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(),
                "--address for shm is a device id in hex, not '" + text + "'");
        }
    }

    public Integer call() throws InterruptedException
    {
        final Path errorDirectory = ErrorFile.hostDirectory(new VerbsContext().shmDirectory());
        if (errors)
        {
            final boolean oneNode = spec.commandLine().getParseResult().hasMatchedOption("--node-id");
            System.out.print(oneNode ?
                ErrorFile.report(ErrorFile.fileOf(errorDirectory, MetaServer.errorFileName(nodeId))) :
                ErrorFile.reportAll(errorDirectory, MetaServer.ERROR_FILE_PREFIX));
            return 0;
        }
        final Path countersDirectory = CountersFile.hostDirectory(new VerbsContext().shmDirectory());
        if (counters)
        {
            final boolean oneNode = spec.commandLine().getParseResult().hasMatchedOption("--node-id");
            spec.commandLine().getOut().print(CountersStat.reportOf(countersDirectory, MetaServer.ERROR_FILE_PREFIX,
                oneNode ? nodeId : 0));
            spec.commandLine().getOut().flush();
            return 0;
        }
        final MetaServerContext context = context().errorDirectory(errorDirectory).countersDirectory(countersDirectory);
        final MetaServer server = MetaServer.start(context);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            server.close();
            stopped.countDown();
        }, "dkv-meta-shutdown"));
        final PrintWriter out = spec.commandLine().getOut();
        out.println(server.endpoint());
        out.flush();
        System.err.printf("MetaServer %d serving on %s, data in %s, lease %d ms, replicas %d, store %s%s; " +
            "Ctrl-C stops it%n", context.nodeId(), server.endpoint().address(), context.dataDir().toAbsolutePath(),
            context.leaseMs(), server.membership().replicas(), server.founding(),
            context.peer() == null ? "" : ", peer " + context.peer());
        stopped.await();
        return 0;
    }

    /**
     * The MetaServer's own main, as Aeron's {@code MediaDriver} has one: {@code java -cp ... MetaCommand ARGS} runs
     * what {@code ./dkv meta ARGS} runs ({@code members}, {@code evict} and {@code withdraw} included), without the
     * rest of the dkv command line.
     */
    public static void main(final String[] args)
    {
        DkvCommandLine.run(new MetaCommand(), args);
    }
}
