package io.dkv.raas.driver;

import org.agrona.concurrent.Agent;

/**
 * The Worker: posts what callers queued but did not post themselves, recycles broken queue pairs,
 * and keeps the pool in shape (promotion and demotion of RC queue pairs).
 */
final class WorkerAgent implements Agent
{
    private final RaasDriver driver;
    private long nextHousekeeping;

    WorkerAgent(final RaasDriver driver)
    {
        this.driver = driver;
    }

    public int doWork()
    {
        int work = driver.drainSubmissions();
        final long now = System.nanoTime();
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
