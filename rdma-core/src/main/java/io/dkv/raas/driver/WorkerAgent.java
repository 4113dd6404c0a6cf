package io.dkv.raas.driver;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * The Worker: posts what callers queued but did not post themselves, recycles broken queue pairs,
 * and keeps the pool in shape (promotion and demotion of RC queue pairs).
 */
final class WorkerAgent implements Agent
{
    private final RaasDriver driver;
    private final NanoClock nanoClock;
    private long nextHousekeeping;

    WorkerAgent(final RaasDriver driver, final NanoClock nanoClock)
    {
        this.driver = driver;
        this.nanoClock = nanoClock;
        // due at the first turn, whatever the clock's origin (a nanoTime may be negative)
        this.nextHousekeeping = nanoClock.nanoTime();
    }

    public int doWork()
    {
        int work = driver.drainSubmissions();
        final long now = nanoClock.nanoTime();
        if (now - nextHousekeeping >= 0)
        {
            nextHousekeeping = now + 1_000_000L;
            work += driver.housekeeping();
        }
        return work;
    }

    public String roleName()
    {
        return "dkv-raas-worker-" + driver.self().id();
    }
}
