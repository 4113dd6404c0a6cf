package io.dkv.process;

/**
 * Which class's main runs each role that {@code ./dkv} starts in a JVM of its own. Most roles live in modules that
 * depend on this one, so they are named here by class name (the driver too, keeping the launcher off the raas
 * packages); a test of the {@code cli} module, which sees them all, loads each and finds its main and its
 * {@code ./dkv} subcommand.
 */
public final class RoleMains
{
    public static final String DRIVER = "io.dkv.raas.command.DriverCommand";
    public static final String META = "io.dkv.meta.command.MetaCommand";
    public static final String MEMORY_NODE = "io.dkv.memory.command.MemoryNodeCommand";
    public static final String COMPUTE_NODE = "io.dkv.compute.ComputeNodeCommand";
    public static final String AUTOSCALE = "io.dkv.compute.autoscale.AutoscaleCommand";
    public static final String CHECK_CLIENT = "io.dkv.load.check.harness.CheckClientCommand";

    /** The {@code ./dkv} subcommands with a main of their own, in the order of {@link #mainClass(String)}. */
    public static final String[] ROLES = {"driver", "meta", "memory-node", "compute-node", "autoscale", "check-client"};

    private RoleMains()
    {
    }

    /**
     * @param role a role as {@code ./dkv} names it, e.g. {@code meta}.
     * @return the class whose main runs that role alone, as {@code ./dkv <role>} does.
     * @throws IllegalArgumentException for a name that is no role with a main of its own.
     */
    public static String mainClass(final String role)
    {
        return switch (role)
        {
            case "driver" -> DRIVER;
            case "meta" -> META;
            case "memory-node" -> MEMORY_NODE;
            case "compute-node" -> COMPUTE_NODE;
            case "autoscale" -> AUTOSCALE;
            case "check-client" -> CHECK_CLIENT;
            default -> throw new IllegalArgumentException("dkv " + role + " is no role with a main of its own");
        };
    }
}
