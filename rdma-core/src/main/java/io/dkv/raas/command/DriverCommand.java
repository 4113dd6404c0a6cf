package io.dkv.raas.command;

import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.raas.cnc.DriverErrors;
import io.dkv.raas.driver.StandaloneDriver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a standalone RaaS driver until interrupted: every process of the host that attaches
 * ({@code AttachedRaas.attach}) shares its queue pair pool and its connections.
 */
@Command(
    name = "driver",
    mixinStandardHelpOptions = true,
    description = {
        "Run the host's standalone RaaS driver. Applications attach to it through its command-and-control file " +
            "(AttachedRaas.attach with the same --name) and share its queue pairs and connections; it removes " +
            "clients that die.",
        "It joins the cluster through the MetaServers --meta names; without --meta it knows only its own node.",
        "Stop it with Ctrl-C."
    })
public final class DriverCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Mixin
    private NodeOptions node;

    @Option(names = "--name", defaultValue = "default",
        description = "Driver name, several may run on a host (default: ${DEFAULT-VALUE}).")
    private String name;

    @Option(names = "--isolation", defaultValue = "${sys:dkv.raas.isolation:-on}", paramLabel = "on|off",
        description = "Serve attached applications by class and weight: latency ones' requests as soon as read, bulk " +
            "ones' a few per duty cycle (on), or every request in arrival order (off) (default: ${DEFAULT-VALUE}).")
    private String isolation;

    @Option(names = "--default-class", defaultValue = "${sys:dkv.raas.default.class:-latency}",
        paramLabel = "latency|bulk",
        description = "Class of applications that attach without asking for one (dkv.raas.client.class) " +
            "(default: ${DEFAULT-VALUE}).")
    private String defaultClass;

    @Option(names = "--default-weight", defaultValue = "${sys:dkv.raas.default.weight:-1}", paramLabel = "N",
        description = "Weight of applications that attach without asking for one (dkv.raas.client.weight): a bulk " +
            "application's requests taken per duty cycle, 1 to " + io.dkv.raas.RaasConfiguration.MAX_WEIGHT +
            " (default: ${DEFAULT-VALUE}).")
    private int defaultWeight;

    @Option(names = "--errors",
        description = "Print the errors the driver named by --name recorded (each distinct one with how often and " +
            "when it was seen), from its command-and-control file, and exit; the driver runs on undisturbed.")
    private boolean errors;

    @Option(names = "--counters",
        description = "Print the counters of the driver named by --name (errors, stalled and recycled queue pairs, " +
            "credit waits, receiver-not-ready retries, requests by opcode, ...), one line each: id, label, value; " +
            "read from its counters file, and exit; the driver runs on undisturbed.")
    private boolean counters;

    public Integer call() throws InterruptedException
    {
        if (errors)
        {
            System.out.print(DriverErrors.report(CncDescriptor.driverDirectory(new RaasContext().cncDirectory(),
                name)));
            return 0;
        }
        if (counters)
        {
            spec.commandLine().getOut().print(DriverErrors.counters(
                CncDescriptor.driverDirectory(new RaasContext().cncDirectory(), name)));
            spec.commandLine().getOut().flush();
            return 0;
        }
        if (defaultWeight < 1 || defaultWeight > io.dkv.raas.RaasConfiguration.MAX_WEIGHT)
        {
            throw new ParameterException(spec.commandLine(), "--default-weight " + defaultWeight + ": 1 to " +
                io.dkv.raas.RaasConfiguration.MAX_WEIGHT);
        }
        // the property's spelling (true/false) is taken too
        isolation = "true".equals(isolation) ? "on" : "false".equals(isolation) ? "off" : isolation;
        if (!"on".equals(isolation) && !"off".equals(isolation))
        {
            throw new ParameterException(spec.commandLine(), "--isolation " + isolation + ": on or off");
        }
        final RaasContext context = node.raasContext()
            .driverName(name)
            .isolation("on".equals(isolation))
            .defaultWeight(defaultWeight);
        try
        {
            context.defaultClass(io.dkv.raas.ServiceClass.parse(defaultClass));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), "--default-class " + ex.getMessage());
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        if (!cluster.meta().isEmpty())
        {
            cluster.requireSecretFile(spec.commandLine(),
                "with --meta, the file with the cluster secret the MetaServer authenticates RPCs with");
        }
        // concluded here for its clocks, which the MetaDirectory takes too: one setting governs the process
        context.conclude();
        final io.dkv.raas.Directory directory = cluster.meta().isEmpty() ? new StaticDirectory() :
            new io.dkv.raas.meta.MetaDirectory(cluster.directoryContext().clocksOf(context));
        try (StandaloneDriver driver = StandaloneDriver.launch(context, directory))
        {
            System.out.println("dkv driver '" + name + "' serving node " + driver.driver().self().id() + " at " +
                driver.driver().self().address() + "; applications attach through " + driver.directory());
            Runtime.getRuntime().addShutdownHook(new Thread(() ->
            {
                driver.close();
                stopped.countDown();
            }));
            stopped.await();
        }
        return 0;
    }

    /**
     * The driver's own main, as Aeron's {@code MediaDriver} has one: {@code java -cp ... DriverCommand --name N} runs
     * what {@code ./dkv driver --name N} runs, without the rest of the dkv command line.
     */
    public static void main(final String[] args)
    {
        DkvCommandLine.run(new DriverCommand(), args);
    }
}
