package io.dkv.verbs;

import io.dkv.clock.CommonContext;
import org.agrona.BitUtil;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;

import static io.dkv.verbs.VerbsConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.booleanProperty;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.longProperty;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * What a device is opened with: the provider and its limits. Starts from {@link VerbsConfiguration}
 * (system properties, then defaults); every setter is fluent.
 *
 * <p>A device reads the time only from {@link #epochClock()} and {@link #nanoClock()}, so a test can drive time; a
 * RaaS driver gives its device its own clocks. The monotonic clock times the retry timeout of a request to a queue
 * pair not ready yet, the tcp engine's receiver-not-ready timers, HELLO timeout, idle spin and link checks. Left
 * unset, a device opened alone runs on the system's clocks ({@link SystemEpochClock}, {@link SystemNanoClock}).
 */
public final class VerbsContext extends CommonContext<VerbsContext>
{
    private String provider = VerbsConfiguration.provider();
    private Path shmDirectory = VerbsConfiguration.shmDirectory();
    private long shmDeviceId;
    private String tcpAddress = VerbsConfiguration.tcpAddress();
    private int maxQp = intProperty(MAX_QP_PROP_NAME, MAX_QP_DEFAULT);
    private int maxMr = intProperty(MAX_MR_PROP_NAME, MAX_MR_DEFAULT);
    private int mtu = intProperty(MTU_PROP_NAME, MTU_DEFAULT);
    private int maxSendSize = intProperty(MAX_SEND_SIZE_PROP_NAME, MAX_SEND_SIZE_DEFAULT);
    private long maxMessageSize = longProperty(MAX_MESSAGE_SIZE_PROP_NAME, MAX_MESSAGE_SIZE_DEFAULT);
    private int shmRingCapacity = intProperty(SHM_RING_CAPACITY_PROP_NAME, SHM_RING_CAPACITY_DEFAULT);
    private boolean shmPopulate = booleanProperty(SHM_POPULATE_PROP_NAME, SHM_POPULATE_DEFAULT);
    private int tcpLinkBuffer = intProperty(TCP_LINK_BUFFER_PROP_NAME, TCP_LINK_BUFFER_DEFAULT);
    private int tcpMaxLinks = intProperty(TCP_MAX_LINKS_PROP_NAME, TCP_MAX_LINKS_DEFAULT);
    private int tcpMaxInvalidFrames = intProperty(TCP_MAX_INVALID_FRAMES_PROP_NAME, TCP_MAX_INVALID_FRAMES_DEFAULT);
    private int tcpConnectTimeoutMs = intProperty(TCP_CONNECT_TIMEOUT_MS_PROP_NAME, TCP_CONNECT_TIMEOUT_MS_DEFAULT);
    private int tcpHelloTimeoutMs = intProperty(TCP_HELLO_TIMEOUT_MS_PROP_NAME, TCP_HELLO_TIMEOUT_MS_DEFAULT);
    private int tcpMaxLinksPerAddress =
        intProperty(TCP_MAX_LINKS_PER_ADDRESS_PROP_NAME, TCP_MAX_LINKS_PER_ADDRESS_DEFAULT);
    private int tcpMaxDcSourcesPerLink =
        intProperty(TCP_MAX_DC_SOURCES_PER_LINK_PROP_NAME, TCP_MAX_DC_SOURCES_PER_LINK_DEFAULT);
    private TcpAnswerLoss tcpAnswerLoss = TcpAnswerLoss.NONE;
    private int tcpRnrTimerUs = intProperty(TCP_RNR_TIMER_US_PROP_NAME, TCP_RNR_TIMER_US_DEFAULT);
    private int retryTimeoutMs = intProperty(RETRY_TIMEOUT_MS_PROP_NAME, RETRY_TIMEOUT_MS_DEFAULT);
    private int tcpEngineSpinUs = intProperty(TCP_ENGINE_SPIN_US_PROP_NAME, TCP_ENGINE_SPIN_US_DEFAULT);
    private boolean dc = booleanProperty(DC_PROP_NAME, DC_DEFAULT);
    private String ibvDevice = System.getProperty(IBV_DEVICE_PROP_NAME);
    private int ibvPort = intProperty(IBV_PORT_PROP_NAME, IBV_PORT_DEFAULT);
    private int ibvGidIndex = intProperty(IBV_GID_INDEX_PROP_NAME, IBV_GID_INDEX_DEFAULT);
    private boolean ibvHugePages = booleanProperty(IBV_HUGE_PAGES_PROP_NAME, IBV_HUGE_PAGES_DEFAULT);
    private long ibvMinMemlock = longProperty(IBV_MIN_MEMLOCK_PROP_NAME, IBV_MIN_MEMLOCK_DEFAULT);

    /**
     * Check the settings together; called by {@link Verbs#open(VerbsContext)}.
     *
     * @return this.
     */
    public VerbsContext conclude()
    {
        requireRange("maxQp", maxQp, 1, 1 << 20);
        requireRange("maxMr", maxMr, 1, 1 << 20);
        requireRange("mtu", mtu, 256, 1 << 20);
        requireRange("maxSendSize", maxSendSize, mtu, 1 << 26);
        if (maxMessageSize < maxSendSize || maxMessageSize > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("maxMessageSize " + maxMessageSize + " must be in " + maxSendSize +
                ".." + Integer.MAX_VALUE);
        }
        if (!BitUtil.isPowerOfTwo(shmRingCapacity) || shmRingCapacity < 8 * (maxSendSize + 64))
        {
            throw new IllegalArgumentException("shmRingCapacity " + shmRingCapacity +
                " must be a power of two of at least 8 * (maxSendSize + 64) = " + 8 * (maxSendSize + 64));
        }
        requireRange("tcpLinkBuffer", tcpLinkBuffer, 16 * 1024, 1 << 28);
        if (tcpLinkBuffer < mtu + 1024)
        {
            throw new IllegalArgumentException("tcpLinkBuffer " + tcpLinkBuffer + " must exceed mtu + 1024 = " +
                (mtu + 1024));
        }
        requireRange("tcpMaxLinks", tcpMaxLinks, 1, 1 << 16);
        requireRange("tcpMaxInvalidFrames", tcpMaxInvalidFrames, 0, Integer.MAX_VALUE);
        requireRange("tcpConnectTimeoutMs", tcpConnectTimeoutMs, 1, 600_000);
        requireRange("tcpHelloTimeoutMs", tcpHelloTimeoutMs, 1, 600_000);
        requireRange("tcpMaxLinksPerAddress", tcpMaxLinksPerAddress, 1, 1 << 16);
        requireRange("tcpMaxDcSourcesPerLink", tcpMaxDcSourcesPerLink, 1, 1 << 20);
        requireRange("tcpRnrTimerUs", tcpRnrTimerUs, 1, 10_000_000);
        requireRange("retryTimeoutMs", retryTimeoutMs, 1, 600_000);
        requireRange("tcpEngineSpinUs", tcpEngineSpinUs, 0, 10_000_000);
        requireRange("ibvPort", ibvPort, 1, 255);
        requireRange("ibvGidIndex", ibvGidIndex, -1, 65_535);
        if (ibvMinMemlock < 0)
        {
            throw new IllegalArgumentException("ibvMinMemlock " + ibvMinMemlock + " is negative");
        }
        // "auto" never outlives conclude: whoever reads the provider afterwards (thresholds, addresses) sees a real one
        provider = Verbs.resolve(provider, this);
        // a device opened alone (a verbs benchmark, a probe of the host's RNIC) keeps the host's time: a harness's
        // skew reaches a device only through the driver that hands it the process's clocks
        if (epochClock() == null)
        {
            epochClock(SystemEpochClock.INSTANCE);
        }
        if (nanoClock() == null)
        {
            nanoClock(SystemNanoClock.INSTANCE);
        }
        return super.conclude();
    }

    public String provider()
    {
        return provider;
    }

    public VerbsContext provider(final String provider)
    {
        this.provider = provider;
        return this;
    }

    public Path shmDirectory()
    {
        return shmDirectory;
    }

    public VerbsContext shmDirectory(final Path shmDirectory)
    {
        this.shmDirectory = shmDirectory;
        return this;
    }

    /** @return host:port the tcp NIC engine listens on. */
    public long shmDeviceId()
    {
        return shmDeviceId;
    }

    /**
     * Open the shm device with this id (the shm counterpart of a fixed tcp port; 0, the default,
     * draws a free one). Opening fails if a live device already has it.
     */
    public VerbsContext shmDeviceId(final long shmDeviceId)
    {
        this.shmDeviceId = shmDeviceId;
        return this;
    }

    public String tcpAddress()
    {
        return tcpAddress;
    }

    public VerbsContext tcpAddress(final String tcpAddress)
    {
        this.tcpAddress = tcpAddress;
        return this;
    }

    public int maxQp()
    {
        return maxQp;
    }

    public VerbsContext maxQp(final int maxQp)
    {
        this.maxQp = maxQp;
        return this;
    }

    public int maxMr()
    {
        return maxMr;
    }

    public VerbsContext maxMr(final int maxMr)
    {
        this.maxMr = maxMr;
        return this;
    }

    public int mtu()
    {
        return mtu;
    }

    public VerbsContext mtu(final int mtu)
    {
        this.mtu = mtu;
        return this;
    }

    public int maxSendSize()
    {
        return maxSendSize;
    }

    public VerbsContext maxSendSize(final int maxSendSize)
    {
        this.maxSendSize = maxSendSize;
        return this;
    }

    public long maxMessageSize()
    {
        return maxMessageSize;
    }

    public VerbsContext maxMessageSize(final long maxMessageSize)
    {
        this.maxMessageSize = maxMessageSize;
        return this;
    }

    public int shmRingCapacity()
    {
        return shmRingCapacity;
    }

    public VerbsContext shmRingCapacity(final int shmRingCapacity)
    {
        this.shmRingCapacity = shmRingCapacity;
        return this;
    }

    public boolean shmPopulate()
    {
        return shmPopulate;
    }

    public VerbsContext shmPopulate(final boolean shmPopulate)
    {
        this.shmPopulate = shmPopulate;
        return this;
    }

    public int tcpLinkBuffer()
    {
        return tcpLinkBuffer;
    }

    public VerbsContext tcpLinkBuffer(final int tcpLinkBuffer)
    {
        this.tcpLinkBuffer = tcpLinkBuffer;
        return this;
    }

    public int tcpMaxLinks()
    {
        return tcpMaxLinks;
    }

    public VerbsContext tcpMaxLinks(final int tcpMaxLinks)
    {
        this.tcpMaxLinks = tcpMaxLinks;
        return this;
    }

    public int tcpMaxInvalidFrames()
    {
        return tcpMaxInvalidFrames;
    }

    public VerbsContext tcpMaxInvalidFrames(final int tcpMaxInvalidFrames)
    {
        this.tcpMaxInvalidFrames = tcpMaxInvalidFrames;
        return this;
    }

    public int tcpConnectTimeoutMs()
    {
        return tcpConnectTimeoutMs;
    }

    public VerbsContext tcpConnectTimeoutMs(final int tcpConnectTimeoutMs)
    {
        this.tcpConnectTimeoutMs = tcpConnectTimeoutMs;
        return this;
    }

    /** @return ms a link peers opened may take to send its HELLO before it is closed. */
    public int tcpHelloTimeoutMs()
    {
        return tcpHelloTimeoutMs;
    }

    public VerbsContext tcpHelloTimeoutMs(final int tcpHelloTimeoutMs)
    {
        this.tcpHelloTimeoutMs = tcpHelloTimeoutMs;
        return this;
    }

    /** @return most links one source IP address may hold at once. */
    public int tcpMaxLinksPerAddress()
    {
        return tcpMaxLinksPerAddress;
    }

    public VerbsContext tcpMaxLinksPerAddress(final int tcpMaxLinksPerAddress)
    {
        this.tcpMaxLinksPerAddress = tcpMaxLinksPerAddress;
        return this;
    }

    /** @return most DC initiators of one link whose error or retransmission state is held at once. */
    public int tcpMaxDcSourcesPerLink()
    {
        return tcpMaxDcSourcesPerLink;
    }

    public VerbsContext tcpMaxDcSourcesPerLink(final int tcpMaxDcSourcesPerLink)
    {
        this.tcpMaxDcSourcesPerLink = tcpMaxDcSourcesPerLink;
        return this;
    }

    /** @return which atomic answers the tcp NIC engine loses after executing them: none but in tests. */
    public TcpAnswerLoss tcpAnswerLoss()
    {
        return tcpAnswerLoss;
    }

    /** @param tcpAnswerLoss atomics the tcp NIC engine executes and never answers, for tests of a lost answer. */
    public VerbsContext tcpAnswerLoss(final TcpAnswerLoss tcpAnswerLoss)
    {
        this.tcpAnswerLoss = tcpAnswerLoss;
        return this;
    }

    public int tcpRnrTimerUs()
    {
        return tcpRnrTimerUs;
    }

    public VerbsContext tcpRnrTimerUs(final int tcpRnrTimerUs)
    {
        this.tcpRnrTimerUs = tcpRnrTimerUs;
        return this;
    }

    /** @return whether a software device offers DC transport (an RNIC's own capability decides for verbs). */
    public boolean dc()
    {
        return dc;
    }

    public VerbsContext dc(final boolean dc)
    {
        this.dc = dc;
        return this;
    }

    /** @return the RNIC the verbs provider opens; null: the first libibverbs lists. */
    public String ibvDevice()
    {
        return ibvDevice;
    }

    public VerbsContext ibvDevice(final String ibvDevice)
    {
        this.ibvDevice = ibvDevice;
        return this;
    }

    public int ibvPort()
    {
        return ibvPort;
    }

    public VerbsContext ibvPort(final int ibvPort)
    {
        this.ibvPort = ibvPort;
        return this;
    }

    /** @return the GID index the verbs provider sends from; -1: chosen from the GID table. */
    public int ibvGidIndex()
    {
        return ibvGidIndex;
    }

    public VerbsContext ibvGidIndex(final int ibvGidIndex)
    {
        this.ibvGidIndex = ibvGidIndex;
        return this;
    }

    public boolean ibvHugePages()
    {
        return ibvHugePages;
    }

    public VerbsContext ibvHugePages(final boolean ibvHugePages)
    {
        this.ibvHugePages = ibvHugePages;
        return this;
    }

    /** @return the RLIMIT_MEMLOCK below which the verbs provider refuses to open (without CAP_IPC_LOCK). */
    public long ibvMinMemlock()
    {
        return ibvMinMemlock;
    }

    public VerbsContext ibvMinMemlock(final long ibvMinMemlock)
    {
        this.ibvMinMemlock = ibvMinMemlock;
        return this;
    }

    public int retryTimeoutMs()
    {
        return retryTimeoutMs;
    }

    public VerbsContext retryTimeoutMs(final int retryTimeoutMs)
    {
        this.retryTimeoutMs = retryTimeoutMs;
        return this;
    }

    public int tcpEngineSpinUs()
    {
        return tcpEngineSpinUs;
    }

    public VerbsContext tcpEngineSpinUs(final int tcpEngineSpinUs)
    {
        this.tcpEngineSpinUs = tcpEngineSpinUs;
        return this;
    }
}
