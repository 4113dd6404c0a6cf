package io.dkv.compute;

import sun.misc.Signal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * SIGINT and SIGTERM taken as a request to stop, which the main thread awaits, so that the process drains and then
 * exits with a status of its own choosing. A shutdown hook cannot do that: a JVM ended by a signal exits with 128 plus
 * the signal's number whatever its hooks do, and a stop that went well would read as a failure (143) to whatever
 * started it, and hooks run all at once, where a process that stops others may need an order. A second signal while
 * the first is served exits at once, for an operator whose drain hangs.
 */
public final class StopSignals
{
    private static final String[] NAMES = { "INT", "TERM" };

    private final CountDownLatch signalled = new CountDownLatch(1);
    private volatile String received;

    private StopSignals()
    {
    }

    /** @return the handler of SIGINT and SIGTERM in this JVM from now on. */
    public static StopSignals install()
    {
        final StopSignals signals = new StopSignals();
        for (final String name : NAMES)
        {
            Signal.handle(new Signal(name), signals::onSignal);
        }
        return signals;
    }

    private void onSignal(final Signal signal)
    {
        if (received != null)
        {
            // the shutdown hooks still run: what the process started is stopped, if not in order
            Runtime.getRuntime().exit(128 + signal.getNumber());
        }
        received = "SIG" + signal.getName();
        signalled.countDown();
    }

    /** Block until a signal comes. */
    public void await() throws InterruptedException
    {
        signalled.await();
    }

    /**
     * Block until a signal comes or the time is up, for a main thread that has work between signals.
     *
     * @return whether a signal came.
     */
    public boolean await(final long timeoutMs) throws InterruptedException
    {
        return signalled.await(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** @return the signal that came, e.g. SIGTERM, or null while none has. */
    public String received()
    {
        return received;
    }
}
