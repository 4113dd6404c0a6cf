package io.dkv.verbs;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Configuration properties of the verbs layer: system property names and defaults. A
 * {@link VerbsContext} starts from these and may override each one.
 */
public final class VerbsConfiguration
{
    /**
     * Provider opened when none is named: {@code shm}, {@code tcp}, {@code verbs} (an RNIC through libibverbs) or
     * {@code auto} ({@code verbs} where a device is present and usable, else {@code shm}).
     */
    public static final String PROVIDER_PROP_NAME = "dkv.verbs.provider";
    public static final String PROVIDER_DEFAULT = "shm";
    public static final String PROVIDER_AUTO = "auto";

    /**
     * Whether the software providers offer DC transport: false makes them refuse DC targets and initiators as an
     * RNIC without DC does, so that RaaS's RC-only mode can run here.
     */
    public static final String DC_PROP_NAME = "dkv.verbs.dc";
    public static final boolean DC_DEFAULT = true;

    /** The RNIC the verbs provider opens (as ibv_devices names it, e.g. mlx5_0); unset: the first listed. */
    public static final String IBV_DEVICE_PROP_NAME = "dkv.verbs.ibv.device";

    /** The RNIC's port the verbs provider uses, from 1. */
    public static final String IBV_PORT_PROP_NAME = "dkv.verbs.ibv.port";
    public static final int IBV_PORT_DEFAULT = 1;

    /**
     * The GID table entry the verbs provider sends from; -1 chooses: index 0 on InfiniBand, on RoCE the first
     * RoCE v2 entry holding an IPv4 address, else the first RoCE v2 entry, else the first RoCE v1 entry.
     */
    public static final String IBV_GID_INDEX_PROP_NAME = "dkv.verbs.ibv.gid.index";
    public static final int IBV_GID_INDEX_DEFAULT = -1;

    /** Whether the verbs provider backs the regions it allocates with 2 MiB huge pages (vm.nr_hugepages). */
    public static final String IBV_HUGE_PAGES_PROP_NAME = "dkv.verbs.ibv.huge.pages";
    public static final boolean IBV_HUGE_PAGES_DEFAULT = false;

    /**
     * Bytes of memory a process may lock (RLIMIT_MEMLOCK) below which the verbs provider refuses to open, unless it
     * holds CAP_IPC_LOCK: every registered region is pinned, and a lower limit fails registrations later, mid-run.
     */
    public static final String IBV_MIN_MEMLOCK_PROP_NAME = "dkv.verbs.ibv.min.memlock";
    public static final long IBV_MIN_MEMLOCK_DEFAULT = 256L * 1024 * 1024;

    /** Directory under which the shm provider keeps its devices' files; a tmpfs. */
    public static final String SHM_DIR_PROP_NAME = "dkv.verbs.shm.dir";

    /** Address (host:port) the tcp provider's NIC engine listens on; port 0 picks a free one. */
    public static final String TCP_ADDRESS_PROP_NAME = "dkv.verbs.tcp.address";
    public static final String TCP_ADDRESS_DEFAULT = "127.0.0.1:0";

    public static final String MAX_QP_PROP_NAME = "dkv.verbs.max.qp";
    public static final int MAX_QP_DEFAULT = 4096;

    public static final String MAX_MR_PROP_NAME = "dkv.verbs.max.mr";
    public static final int MAX_MR_DEFAULT = 4096;

    /** Largest UD message. */
    public static final String MTU_PROP_NAME = "dkv.verbs.mtu";
    public static final int MTU_DEFAULT = 4096;

    /** Largest SEND on RC or DC; larger transfers use RDMA WRITE. */
    public static final String MAX_SEND_SIZE_PROP_NAME = "dkv.verbs.max.send.size";
    public static final int MAX_SEND_SIZE_DEFAULT = 64 * 1024;

    /** Largest RDMA READ or WRITE. */
    public static final String MAX_MESSAGE_SIZE_PROP_NAME = "dkv.verbs.max.message.size";
    public static final long MAX_MESSAGE_SIZE_DEFAULT = 1L << 30;

    /** Bytes of each shm receive ring (one per receiving QP or DC target); a power of two. */
    public static final String SHM_RING_CAPACITY_PROP_NAME = "dkv.verbs.shm.ring.capacity";
    public static final int SHM_RING_CAPACITY_DEFAULT = 1024 * 1024;

    /**
     * Whether shm gives a region all its memory when it is allocated, as an RNIC's registration
     * pins a region's pages; false leaves pages to be allocated when first reached (on hosts short
     * of memory, for large regions mostly unused).
     */
    public static final String SHM_POPULATE_PROP_NAME = "dkv.verbs.shm.populate";
    public static final boolean SHM_POPULATE_DEFAULT = true;

    /** Bytes of each tcp link's transmit and receive staging buffers. */
    public static final String TCP_LINK_BUFFER_PROP_NAME = "dkv.verbs.tcp.link.buffer";
    public static final int TCP_LINK_BUFFER_DEFAULT = 256 * 1024;

    /** Most links (peer connections) a tcp NIC engine accepts. */
    public static final String TCP_MAX_LINKS_PROP_NAME = "dkv.verbs.tcp.max.links";
    public static final int TCP_MAX_LINKS_DEFAULT = 1024;

    /** Invalid requests (unknown QP, wrong DC key) a link may send before it is cut off. */
    public static final String TCP_MAX_INVALID_FRAMES_PROP_NAME = "dkv.verbs.tcp.max.invalid.frames";
    public static final int TCP_MAX_INVALID_FRAMES_DEFAULT = 16;

    /**
     * How long a link peers opened may take to send its first frame (HELLO) before it is closed: a
     * connection that says nothing holds a socket and a place among the links for no one.
     */
    public static final String TCP_HELLO_TIMEOUT_MS_PROP_NAME = "dkv.verbs.tcp.hello.timeout.ms";
    public static final int TCP_HELLO_TIMEOUT_MS_DEFAULT = 5000;

    /**
     * Most links one source IP address may hold at once: one host cannot take every place among the
     * links. A host holds one link per device (process) that talks to this one.
     */
    public static final String TCP_MAX_LINKS_PER_ADDRESS_PROP_NAME = "dkv.verbs.tcp.max.links.per.address";
    public static final int TCP_MAX_LINKS_PER_ADDRESS_DEFAULT = 256;

    /**
     * Most DC initiators of one link whose state the responder holds at once (those whose requests
     * failed, or wait for a retransmission after receiver-not-ready): a real host has a few DC
     * initiators, so a link naming more than this is cut off rather than given memory.
     */
    public static final String TCP_MAX_DC_SOURCES_PER_LINK_PROP_NAME = "dkv.verbs.tcp.max.dc.sources.per.link";
    public static final int TCP_MAX_DC_SOURCES_PER_LINK_DEFAULT = 1024;

    public static final String TCP_CONNECT_TIMEOUT_MS_PROP_NAME = "dkv.verbs.tcp.connect.timeout.ms";
    public static final int TCP_CONNECT_TIMEOUT_MS_DEFAULT = 2000;

    /**
     * How long a request to an RC QP that is not yet ready (still RESET or INIT) is retried before
     * it fails with RETRY_EXC_ERR, as an RNIC's transport retries do while both sides connect.
     */
    public static final String RETRY_TIMEOUT_MS_PROP_NAME = "dkv.verbs.retry.timeout.ms";
    public static final int RETRY_TIMEOUT_MS_DEFAULT = 1000;

    /** Wait before a SEND refused for lack of a receive request is retransmitted. */
    public static final String TCP_RNR_TIMER_US_PROP_NAME = "dkv.verbs.tcp.rnr.timer.us";
    public static final int TCP_RNR_TIMER_US_DEFAULT = 200;

    /**
     * How long the NIC engine polls its sockets before it blocks in the selector. Polling helps
     * only where a core is free for it: on two cores a polling engine takes the CPU from the
     * thread that has the work, so the default polls only on machines with more than two.
     */
    public static final String TCP_ENGINE_SPIN_US_PROP_NAME = "dkv.verbs.tcp.engine.spin.us";
    public static final int TCP_ENGINE_SPIN_US_DEFAULT = Runtime.getRuntime().availableProcessors() > 2 ? 20 : 0;

    private VerbsConfiguration()
    {
    }

    public static String provider()
    {
        return System.getProperty(PROVIDER_PROP_NAME, PROVIDER_DEFAULT);
    }

    public static Path shmDirectory()
    {
        final String configured = System.getProperty(SHM_DIR_PROP_NAME);
        if (configured != null)
        {
            return Path.of(configured);
        }
        final Path devShm = Path.of("/dev/shm");
        return Files.isDirectory(devShm) && Files.isWritable(devShm) ? devShm :
            Path.of(System.getProperty("java.io.tmpdir"));
    }

    public static String tcpAddress()
    {
        return System.getProperty(TCP_ADDRESS_PROP_NAME, TCP_ADDRESS_DEFAULT);
    }
}
