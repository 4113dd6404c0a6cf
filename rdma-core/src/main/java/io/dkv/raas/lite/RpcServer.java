package io.dkv.raas.lite;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * LITE's RPC server: one poll thread serves every caller of a service. It accepts their connections, takes
 * each request as it arrives, runs the handler and sends the reply back adaptively (WRITE_WITH_IMM into the
 * buffer the caller advertised where the driver's thresholds choose it, as LITE's RPC does). A handler
 * that throws fails that call alone.
 *
 * <p>Over a handle attached to the host's standalone driver it outlives the driver's restarts: once the handle is in
 * a new session ({@link Raas#session()}) the server listens again there, at most every
 * {@link #RELISTEN_INTERVAL_NS}; the callers of the old session reconnect on their own.
 */
public final class RpcServer implements AutoCloseable
{
    public static final int MAX_MESSAGE_BYTES_DEFAULT = 1024 * 1024;
    /** How often a server whose handle moved to a new session tries to listen there, while that fails. */
    public static final long RELISTEN_INTERVAL_NS = 100_000_000L;

    private final Raas raas;
    private final int service;
    /** Replaced by the poll thread alone, once its handle's session moved on; closed after that thread ended. */
    private Listener listener;
    private volatile int session;
    private final AgentRunner runner;
    private final Arena arena = Arena.ofShared();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final int maxMessageBytes;

    private RpcServer(final Raas raas, final int service, final RpcHandler handler, final int maxMessageBytes)
    {
        this.maxMessageBytes = maxMessageBytes;
        this.raas = raas;
        this.service = service;
        this.session = raas.session();
        this.listener = raas.listen(service);
        final MemorySegment request = arena.allocate(RpcFrames.REQUEST_HEADER + maxMessageBytes, 8);
        final MemorySegment reply = arena.allocate(RpcFrames.REPLY_HEADER + maxMessageBytes, 8);
        this.runner = new AgentRunner(new BackoffIdleStrategy(64, 16, 1_000, 100_000),
            ex -> failures.incrementAndGet(), null, new Serving(handler, request, reply));
        AgentRunner.startOnThread(runner, runnable ->
        {
            final Thread thread = new Thread(runnable);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Serve calls to {@code service} of this node.
     *
     * @param maxMessageBytes the largest request and reply, in bytes.
     */
    public static RpcServer start(final Raas raas, final int service, final RpcHandler handler,
        final int maxMessageBytes)
    {
        if (maxMessageBytes < 1)
        {
            throw new IllegalArgumentException("maxMessageBytes=" + maxMessageBytes + ": at least 1");
        }
        return new RpcServer(raas, service, handler, maxMessageBytes);
    }

    public static RpcServer start(final Raas raas, final int service, final RpcHandler handler)
    {
        return start(raas, service, handler, MAX_MESSAGE_BYTES_DEFAULT);
    }

    /** @return calls answered, failed ones included. */
    public long calls()
    {
        return calls.get();
    }

    /** @return calls whose handler threw, and errors of the poll thread. */
    public long failures()
    {
        return failures.get();
    }

    public int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    /** @return the driver session of the handle this server listens in now ({@link Raas#session()}). */
    public int session()
    {
        return session;
    }

    public void close()
    {
        runner.close();
        listener.close();
        arena.close();
    }

    private static void closeQuietly(final AutoCloseable gone)
    {
        try
        {
            gone.close();
        }
        catch (final Exception ex)
        {
            // of a session whose driver went: nothing is left to release there
        }
    }

    /** The poll thread's duty cycle. */
    private final class Serving implements Agent
    {
        private final RpcHandler handler;
        private final MemorySegment request;
        private final MemorySegment reply;
        private final List<Connection> callers = new ArrayList<>();
        private long relistenAtNs;

        Serving(final RpcHandler handler, final MemorySegment request, final MemorySegment reply)
        {
            this.handler = handler;
            this.request = request;
            this.reply = reply;
            this.relistenAtNs = raas.nanoClock().nanoTime();
        }

        public String roleName()
        {
            return "dkv-rpc-" + service;
        }

        public int doWork()
        {
            // a listener of a session whose driver went may fail its polls or just return nothing: the session says
            int work = raas.session() == session ? 0 : listenAgain();
            Connection accepted;
            try
            {
                while ((accepted = listener.poll()) != null)
                {
                    callers.add(accepted);
                    work++;
                }
            }
            catch (final RaasException listenerGone)
            {
                // its driver gone (an attached handle): counted, and the loop backs off as when idle; a failure
                // thrown to the runner skipped the idle strategy and spun a core on 2-core hosts
                failures.incrementAndGet();
            }
            for (int i = callers.size() - 1; i >= 0; i--)
            {
                final Connection caller = callers.get(i);
                try
                {
                    while (caller.isReadable())
                    {
                        serve(caller);
                        work++;
                    }
                }
                catch (final RaasException gone)
                {
                    // the caller closed its end, or sent more than a request may hold (it was dropped and the
                    // caller's own check refuses that before sending)
                    callers.remove(i);
                    caller.close();
                }
            }
            return work;
        }

        /** @return 1 once listening in the handle's new session, else 0: no new session yet, or not yet. */
        private int listenAgain()
        {
            final int now = raas.session();
            final long nowNs = raas.nanoClock().nanoTime();
            if (nowNs - relistenAtNs < 0)
            {
                return 0;
            }
            relistenAtNs = nowNs + RELISTEN_INTERVAL_NS;
            final Listener fresh;
            try
            {
                fresh = raas.listen(service);
            }
            catch (final RaasException notYet)
            {
                failures.incrementAndGet();
                return 0;
            }
            final Listener old = listener;
            listener = fresh;
            session = now;
            // the old session's callers and listener went with their driver
            callers.forEach(RpcServer::closeQuietly);
            callers.clear();
            closeQuietly(old);
            return 1;
        }

        private void serve(final Connection caller)
        {
            final int length = caller.recv(request, 0, (int)request.byteSize(), Duration.ZERO);
            if (length < RpcFrames.REQUEST_HEADER)
            {
                failures.incrementAndGet();
                return;
            }
            final long correlation = request.get(RpcFrames.LONG, RpcFrames.CORRELATION_OFFSET);
            int status = RpcFrames.OK;
            int replyLength;
            try
            {
                replyLength = handler.handle(caller.nodeId(), request.asSlice(RpcFrames.REQUEST_HEADER,
                    length - RpcFrames.REQUEST_HEADER), length - RpcFrames.REQUEST_HEADER,
                    reply.asSlice(RpcFrames.REPLY_HEADER, maxMessageBytes));
                if (replyLength < 0 || replyLength > maxMessageBytes)
                {
                    throw new IllegalStateException("the handler answered " + replyLength + " bytes; a reply holds 0 " +
                        "to " + maxMessageBytes);
                }
            }
            catch (final RuntimeException ex)
            {
                failures.incrementAndGet();
                status = RpcFrames.ERROR;
                final byte[] message = String.valueOf(ex.getMessage() == null ? ex.toString() : ex.getMessage())
                    .getBytes(StandardCharsets.UTF_8);
                replyLength = Math.min(message.length, maxMessageBytes);
                MemorySegment.copy(MemorySegment.ofArray(message), 0, reply, RpcFrames.REPLY_HEADER, replyLength);
            }
            reply.set(RpcFrames.LONG, RpcFrames.CORRELATION_OFFSET, correlation);
            reply.set(RpcFrames.INT, RpcFrames.STATUS_OFFSET, status);
            reply.set(RpcFrames.INT, RpcFrames.LENGTH_OFFSET, replyLength);
            calls.incrementAndGet();
            caller.send(reply, 0, RpcFrames.REPLY_HEADER + replyLength, Flags.ADAPTIVE);
        }

        public void onClose()
        {
            callers.forEach(Connection::close);
            callers.clear();
        }
    }
}
