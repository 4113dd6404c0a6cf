package io.dkv.verbs.shm;

import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.locks.LockSupport;

/**
 * Looks every few milliseconds at whether the processes behind mapped peer devices still live, so
 * that requests to a killed peer fail quickly while the posting path reads only a flag. One daemon
 * thread per process, started with the first peer.
 */
final class ShmPeerWatchdog
{
    static final long PERIOD_NANOS = 20_000_000L;

    private static final CopyOnWriteArraySet<ShmRemoteDevice> WATCHED = new CopyOnWriteArraySet<>();
    private static Thread thread;

    private ShmPeerWatchdog()
    {
    }

    static synchronized void watch(final ShmRemoteDevice remote)
    {
        WATCHED.add(remote);
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
            for (final ShmRemoteDevice remote : WATCHED)
            {
                remote.checkReachableNow();
            }
            LockSupport.parkNanos(PERIOD_NANOS);
        }
    }
}
