package io.dkv.verbs.shm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Looks every few milliseconds at whether the processes behind mapped peer devices still live, so
 * that requests to a killed peer fail quickly while the posting path reads only a flag. One daemon
 * thread per process, started with the first peer. A peer found gone is no longer watched (a gone
 * process does not come back; a new incarnation is a new peer), and its device is told, so that a
 * host where nodes come and go does not pay for every node it ever met.
 */
final class ShmPeerWatchdog
{
    static final long PERIOD_NANOS = 20_000_000L;

    private static final Map<ShmRemoteDevice, Runnable> WATCHED = new ConcurrentHashMap<>();
    private static Thread thread;

    private ShmPeerWatchdog()
    {
    }

    /**
     * @param remote a peer device just mapped.
     * @param onGone run once, on the watchdog's thread, when the peer is found closed or dead.
     */
    static synchronized void watch(final ShmRemoteDevice remote, final Runnable onGone)
    {
        WATCHED.put(remote, onGone);
        if (thread == null)
        {
            thread = new Thread(ShmPeerWatchdog::run, "dkv-shm-peer-watchdog");
            thread.setDaemon(true);
            thread.start();
        }
    }

    static void unwatch(final ShmRemoteDevice remote)
    {
        WATCHED.remove(remote);
    }

    private static void run()
    {
        while (true)
        {
            for (final Map.Entry<ShmRemoteDevice, Runnable> entry : WATCHED.entrySet())
            {
                if (!entry.getKey().checkReachableNow() && WATCHED.remove(entry.getKey()) != null)
                {
                    entry.getValue().run();
                }
            }
            LockSupport.parkNanos(PERIOD_NANOS);
        }
    }
}
