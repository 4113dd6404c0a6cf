package io.dkv.compute.autoscale;

/**
 * The autoscaler's settings and their defaults: Kubernetes HPA's where it has one (15 s sync period, 10% tolerance, no
 * scale-up stabilization, 300 s scale-down stabilization), so that a host's compute nodes scale as a Deployment's pods
 * would. Each is a system property a {@link AutoscalerContext} starts from.
 */
public final class AutoscalerConfiguration
{
    /** Fewest compute nodes; also what runs before any load is seen. */
    public static final String MIN_NODES_PROP_NAME = "dkv.autoscale.min.nodes";
    public static final int MIN_NODES_DEFAULT = 1;

    /** Most compute nodes. */
    public static final String MAX_NODES_PROP_NAME = "dkv.autoscale.max.nodes";
    public static final int MAX_NODES_DEFAULT = 4;

    /** Largest maximum accepted: each node is a JVM of this host. */
    public static final int MAX_NODES_LIMIT = 64;

    /** How often the load is read and a decision made (HPA's --horizontal-pod-autoscaler-sync-period). */
    public static final String SYNC_PERIOD_PROP_NAME = "dkv.autoscale.sync.period.ms";
    public static final long SYNC_PERIOD_DEFAULT_MS = 15_000;

    /** How far from the target the mean may be with nothing done (HPA's --horizontal-pod-autoscaler-tolerance). */
    public static final String TOLERANCE_PROP_NAME = "dkv.autoscale.tolerance";
    public static final double TOLERANCE_DEFAULT = 0.1;

    /** Scale-up stabilization window (HPA's behavior.scaleUp.stabilizationWindowSeconds default, 0). */
    public static final String UP_WINDOW_PROP_NAME = "dkv.autoscale.scale.up.window.ms";
    public static final long UP_WINDOW_DEFAULT_MS = 0;

    /** Scale-down stabilization window (HPA's behavior.scaleDown.stabilizationWindowSeconds default, 300). */
    public static final String DOWN_WINDOW_PROP_NAME = "dkv.autoscale.scale.down.window.ms";
    public static final long DOWN_WINDOW_DEFAULT_MS = 300_000;

    /** How long one node's metrics endpoint may take to answer before it counts as missing. */
    public static final String SCRAPE_TIMEOUT_PROP_NAME = "dkv.autoscale.scrape.timeout.ms";
    public static final int SCRAPE_TIMEOUT_DEFAULT_MS = 1_000;

    /** How long a node may take to serve after it is started before it is given up and replaced. */
    public static final String START_TIMEOUT_PROP_NAME = "dkv.autoscale.start.timeout.ms";
    public static final long START_TIMEOUT_DEFAULT_MS = 60_000;

    /** How long a draining node may take to exit before it is killed. */
    public static final String DRAIN_TIMEOUT_PROP_NAME = "dkv.autoscale.drain.timeout.ms";
    public static final long DRAIN_TIMEOUT_DEFAULT_MS = 30_000;

    private AutoscalerConfiguration()
    {
    }
}
