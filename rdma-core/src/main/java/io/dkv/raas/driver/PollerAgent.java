package io.dkv.raas.driver;

import org.agrona.concurrent.Agent;

/**
 * The Poller: drains the completion queues and dispatches each completion to its logical
 * connection by the vQPN it carries, when no caller is polling already.
 */
final class PollerAgent implements Agent
{
    private final RaasDriver driver;

    PollerAgent(final RaasDriver driver)
    {
        this.driver = driver;
    }

    public int doWork()
    {
        return driver.pollFromAgent();
    }

    public String roleName()
    {
        return "dkv-raas-poller-" + driver.self().id();
    }
}
