package io.dkv.verbs.tcp;

import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The NIC engine of a tcp device: one agent thread that accepts links, serves every request that
 * arrives on them (application threads are never involved), finishes transmissions the posting
 * threads could not, and retransmits after receiver-not-ready NAKs. It polls for a few microseconds after work, then
 * blocks in the selector: these machines may have two cores.
 */
final class TcpNicEngine implements Agent
{
    private static final System.Logger LOG = System.getLogger(TcpNicEngine.class.getName());
    private static final int ACCEPTS_PER_TURN = 8;
    private static final int CUT_OFF_LINES_PER_SECOND = 10;

    private final TcpDevice device;
    private final NanoClock nanoClock;
    private final Selector selector;
    private final ServerSocketChannel server;
    private final InetSocketAddress boundAddress;
    private final int maxLinks;
    private final int maxLinksPerAddress;
    private final long helloTimeoutNanos;
    private final Object2IntHashMap<InetAddress> linksPerAddress = new Object2IntHashMap<>(0);
    private final ArrayList<InboundLink> awaitingHello = new ArrayList<>();
    private final long spinNanos;
    private final ManyToOneConcurrentArrayQueue<TcpLink> registrations = new ManyToOneConcurrentArrayQueue<>(1024);
    private final ManyToOneConcurrentArrayQueue<OutboundLink> flushRequests = new ManyToOneConcurrentArrayQueue<>(4096);
    private final ManyToOneConcurrentArrayQueue<OutboundLink> closeRequests = new ManyToOneConcurrentArrayQueue<>(1024);
    private final ManyToOneConcurrentArrayQueue<TcpQueuePair> rnrRequests = new ManyToOneConcurrentArrayQueue<>(4096);
    private final Consumer<TcpQueuePair> onRnrRequest = this::onRnrRequest;
    private final ArrayList<TcpQueuePair> rnrWaiting = new ArrayList<>();
    private final ArrayList<TcpLink> links = new ArrayList<>();
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final Consumer<TcpLink> onRegistration = this::register;
    private final Consumer<OutboundLink> onFlushRequest = OutboundLink::flushFromEngine;
    private final AtomicLong linksCutOff = new AtomicLong();
    private final AtomicLong linkBufferBytes = new AtomicLong();
    private final AtomicLong dcSourceStates = new AtomicLong();
    private final AtomicLong inboundBufferBytes = new AtomicLong();
    private volatile int inboundLinks;
    private final AgentRunner runner;
    private int selectedCount;
    private long cutOffLogSecondStart;
    private int cutOffLinesThisSecond;
    private long cutOffLinesSuppressed;
    private boolean eventsHandledWhileIdle;
    private volatile String lastCutOffReason;

    TcpNicEngine(final TcpDevice device, final InetSocketAddress bindAddress) throws IOException
    {
        this.device = device;
        this.nanoClock = device.context().nanoClock();
        this.cutOffLogSecondStart = nanoClock.nanoTime() - 2_000_000_000L;
        this.maxLinks = device.context().tcpMaxLinks();
        this.maxLinksPerAddress = device.context().tcpMaxLinksPerAddress();
        this.helloTimeoutNanos = device.context().tcpHelloTimeoutMs() * 1_000_000L;
        this.spinNanos = device.context().tcpEngineSpinUs() * 1000L;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        try
        {
            server.bind(bindAddress, 128);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            this.boundAddress = (InetSocketAddress)server.getLocalAddress();
        }
        catch (final IOException ex)
        {
            CloseHelper.quietCloseAll(server, selector);
            throw ex;
        }
        final ErrorHandler errorHandler = error ->
            LOG.log(System.Logger.Level.ERROR, "tcp NIC engine " + boundAddress + " error", error);
        this.runner = new AgentRunner(new EngineIdleStrategy(), errorHandler, (AtomicCounter)null, this);
    }

    void start()
    {
        AgentRunner.startOnThread(runner, runnable ->
        {
            final Thread thread = new Thread(runnable);
            thread.setDaemon(true);
            return thread;
        });
    }

    InetSocketAddress boundAddress()
    {
        return boundAddress;
    }

    public String roleName()
    {
        return "dkv-tcp-nic-" + boundAddress.getPort();
    }

    /** @return the engine thread, once started. */
    Thread thread()
    {
        return runner.thread();
    }

    /**
     * @param peerOpened true for links peers opened: what a peer can make the engine hold is counted
     *                   apart from what the device itself opened.
     */
    void onBuffersAllocated(final long bytes, final boolean peerOpened)
    {
        linkBufferBytes.addAndGet(bytes);
        if (peerOpened)
        {
            inboundBufferBytes.addAndGet(bytes);
        }
    }

    /** @return bytes of staging buffers of links peers opened. */
    long inboundBufferBytes()
    {
        return inboundBufferBytes.get();
    }

    /** @return links peers opened that the engine serves now. */
    int inboundLinkCount()
    {
        return inboundLinks;
    }

    /** @return bytes of link staging buffers currently allocated. */
    long linkBufferBytes()
    {
        return linkBufferBytes.get();
    }

    void onDcSourceStates(final int delta)
    {
        dcSourceStates.addAndGet(delta);
    }

    /** @return DC initiators whose state the engine's links hold now. */
    long dcSourceStates()
    {
        return dcSourceStates.get();
    }

    long linksCutOff()
    {
        return linksCutOff.get();
    }

    String lastCutOffReason()
    {
        return lastCutOffReason;
    }

    /** @return links currently open, accepted and initiated (approximate from other threads). */
    int linkCount()
    {
        return links.size();
    }

    public int doWork()
    {
        int work = 0;
        if (eventsHandledWhileIdle)
        {
            // the blocking select just served the ready sockets: polling again would find nothing
            eventsHandledWhileIdle = false;
        }
        else
        {
            selectedCount = 0;
            try
            {
                selector.selectNow(onSelected);
            }
            catch (final IOException | ClosedSelectorException ex)
            {
                return 0;
            }
            work += selectedCount;
        }
        work += registrations.drain(onRegistration);
        work += closeRequests.drain(link -> link.close(link.pendingCloseReason));
        work += flushRequests.drain(onFlushRequest);
        work += rnrRequests.drain(onRnrRequest);
        if (!rnrWaiting.isEmpty())
        {
            work += expireRnrTimers();
        }
        if (!awaitingHello.isEmpty())
        {
            work += closeSilentLinks();
        }
        return work;
    }

    /** Links that said nothing within the HELLO timeout go: they hold a socket and a place for no one. */
    private int closeSilentLinks()
    {
        final long now = nanoClock.nanoTime();
        int closed = 0;
        for (int i = awaitingHello.size() - 1; i >= 0; i--)
        {
            final InboundLink link = awaitingHello.get(i);
            if (link.saidHello() || link.isClosed())
            {
                awaitingHello.remove(i);
            }
            else if (now - link.acceptedNanos() > helloTimeoutNanos)
            {
                awaitingHello.remove(i);
                link.close("no HELLO within " + helloTimeoutNanos / 1_000_000 + " ms");
                closed++;
            }
        }
        return closed;
    }

    private int expireRnrTimers()
    {
        final long now = nanoClock.nanoTime();
        int expired = 0;
        for (int i = rnrWaiting.size() - 1; i >= 0; i--)
        {
            final TcpQueuePair qp = rnrWaiting.get(i);
            if (qp.rnrTimerExpired(now))
            {
                rnrWaiting.remove(i);
                qp.progress();
                expired++;
            }
        }
        return expired;
    }

    private void onSelected(final SelectionKey key)
    {
        selectedCount++;
        if (!key.isValid())
        {
            return;
        }
        final Object attachment = key.attachment();
        if (attachment == null)
        {
            accept();
            return;
        }
        ((TcpLink)attachment).onReady(key.readyOps());
    }

    /**
     * Accept what is pending, a bounded number at a time: a peer that keeps connecting must not
     * keep the engine from serving the links it already has.
     */
    private void accept()
    {
        for (int accepted = 0; accepted < ACCEPTS_PER_TURN; accepted++)
        {
            final SocketChannel channel;
            try
            {
                channel = server.accept();
            }
            catch (final IOException ex)
            {
                LOG.log(System.Logger.Level.WARNING, "tcp NIC engine " + boundAddress + " accept failed: " + ex);
                return;
            }
            if (channel == null)
            {
                return;
            }
            String peer = "?";
            try
            {
                final InetSocketAddress remote = (InetSocketAddress)channel.getRemoteAddress();
                peer = String.valueOf(remote);
                if (links.size() >= maxLinks)
                {
                    cutOff("link from " + peer, "engine already has " + links.size() + " links (maxLinks)");
                    channel.close();
                    continue;
                }
                final InetAddress source = remote.getAddress();
                final int fromSource = linksPerAddress.getValue(source);
                if (fromSource >= maxLinksPerAddress)
                {
                    cutOff("link from " + peer, "address " + source.getHostAddress() + " already has " + fromSource +
                        " links (maxLinksPerAddress)");
                    channel.close();
                    continue;
                }
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final InboundLink link =
                    new InboundLink(this, device, channel, "link from " + peer, source, nanoClock.nanoTime());
                linksPerAddress.put(source, fromSource + 1);
                awaitingHello.add(link);
                register(link);
            }
            catch (final IOException ex)
            {
                CloseHelper.quietClose(channel);
            }
        }
    }

    private void register(final TcpLink link)
    {
        if (link.isClosed())
        {
            return;
        }
        try
        {
            // the engine reads what peers send to this device; responses to its own requests are read by pollers
            final int ops = link instanceof OutboundLink ? SelectionKey.OP_WRITE : SelectionKey.OP_READ;
            link.key(link.channel.register(selector, ops, link));
            links.add(link);
            if (link instanceof InboundLink)
            {
                inboundLinks++;
            }
        }
        catch (final IOException ex)
        {
            link.close("cannot register: " + ex);
        }
    }

    /** Queue a link the engine should serve (called by the thread that connected it). */
    void addLink(final TcpLink link)
    {
        while (!registrations.offer(link))
        {
            Thread.onSpinWait();
        }
        selector.wakeup();
    }

    /** Ask the engine to finish sending what a posting thread left staged. */
    void requestFlush(final OutboundLink link)
    {
        flushRequests.offer(link);
        selector.wakeup();
    }

    /** Ask the engine to close a link (called from a posting thread that saw it fail). */
    void requestClose(final OutboundLink link, final String reason)
    {
        link.pendingCloseReason = reason;
        closeRequests.offer(link);
        selector.wakeup();
    }

    /** Retransmit for a QP once its receiver-not-ready timer expires (called by the poller that saw the NAK). */
    void scheduleRnr(final TcpQueuePair qp)
    {
        while (!rnrRequests.offer(qp))
        {
            Thread.onSpinWait();
        }
        selector.wakeup();
    }

    private void onRnrRequest(final TcpQueuePair qp)
    {
        if (!rnrWaiting.contains(qp))
        {
            rnrWaiting.add(qp);
        }
    }

    void onClosed(final TcpLink link, final String reason)
    {
        if (links.remove(link) && link instanceof InboundLink)
        {
            inboundLinks--;
        }
        if (link instanceof InboundLink inbound)
        {
            final int fromSource = linksPerAddress.getValue(inbound.sourceAddress()) - 1;
            if (fromSource <= 0)
            {
                linksPerAddress.removeKey(inbound.sourceAddress());
            }
            else
            {
                linksPerAddress.put(inbound.sourceAddress(), fromSource);
            }
        }
        if (!(link instanceof OutboundLink))
        {
            link.releaseBuffers();
        }
        if (link instanceof InboundLink && reason != null && !reason.equals("peer closed the connection"))
        {
            cutOff(link.name(), reason);
        }
    }

    /**
     * Count a link cut off, and say so in the log at most {@link #CUT_OFF_LINES_PER_SECOND} times a
     * second: a peer that gets itself cut off in a loop must not flood the log too.
     */
    private void cutOff(final String link, final String reason)
    {
        lastCutOffReason = reason;
        linksCutOff.incrementAndGet();
        final long now = nanoClock.nanoTime();
        if (now - cutOffLogSecondStart > 1_000_000_000L)
        {
            if (cutOffLinesSuppressed > 0)
            {
                LOG.log(System.Logger.Level.WARNING,
                    "tcp NIC engine " + boundAddress + " cut off " + cutOffLinesSuppressed +
                    " more links in the last second without saying so (last: " + link + ": " + reason + ")");
            }
            cutOffLogSecondStart = now;
            cutOffLinesThisSecond = 0;
            cutOffLinesSuppressed = 0;
        }
        if (++cutOffLinesThisSecond <= CUT_OFF_LINES_PER_SECOND)
        {
            LOG.log(System.Logger.Level.WARNING, "tcp NIC engine " + boundAddress + " cut off " + link + ": " + reason);
        }
        else
        {
            cutOffLinesSuppressed++;
        }
    }

    public void onClose()
    {
        for (final TcpLink link : new ArrayList<>(links))
        {
            link.close(null);
        }
        CloseHelper.quietCloseAll(server, selector);
    }

    void close()
    {
        CloseHelper.quietClose(runner);
    }

    /**
     * Polls while work keeps coming, then blocks in the selector until a socket is ready or another
     * thread wakes it.
     */
    private final class EngineIdleStrategy implements IdleStrategy
    {
        private long idleSince;

        public void idle(final int workCount)
        {
            if (workCount > 0)
            {
                idleSince = 0;
                return;
            }
            idle();
        }

        public void idle()
        {
            final long now = nanoClock.nanoTime();
            if (idleSince == 0)
            {
                idleSince = now;
            }
            if (now - idleSince < spinNanos)
            {
                Thread.onSpinWait();
                return;
            }
            try
            {
                selectedCount = 0;
                selector.select(onSelected, rnrWaiting.isEmpty() ? 100 : 1);
                if (selectedCount > 0)
                {
                    idleSince = 0;
                    eventsHandledWhileIdle = true;
                }
            }
            catch (final IOException | ClosedSelectorException ignore)
            {
                // closing
            }
        }

        public void reset()
        {
            idleSince = 0;
        }
    }
}
