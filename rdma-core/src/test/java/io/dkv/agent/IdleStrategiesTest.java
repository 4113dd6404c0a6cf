package io.dkv.agent;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent's idle strategy is named in configuration: each name gives Agrona's strategy, a new one each time, and a
 * wrong spec is refused with a message that names it.
 */
class IdleStrategiesTest
{
    @Test
    void eachNameGivesItsStrategy()
    {
        assertInstanceOf(BackoffIdleStrategy.class, IdleStrategies.parse("backoff"));
        assertInstanceOf(BackoffIdleStrategy.class, IdleStrategies.parse("backoff:10,20,1000,50000"));
        assertInstanceOf(BackoffIdleStrategy.class, IdleStrategies.parse(IdleStrategies.BACKOFF_DEFAULT));
        assertInstanceOf(SleepingIdleStrategy.class, IdleStrategies.parse("sleep-ns:100000"));
        assertInstanceOf(YieldingIdleStrategy.class, IdleStrategies.parse("yield"));
        assertInstanceOf(BusySpinIdleStrategy.class, IdleStrategies.parse(" busy-spin "));
        assertInstanceOf(NoOpIdleStrategy.class, IdleStrategies.parse("noop"));
    }

    @Test
    void aDoorbellStrategySleepsOnTheAgentsDoorbellAndParksWhereThereIsNone()
    {
        final org.agrona.concurrent.UnsafeBuffer memory =
            new org.agrona.concurrent.UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(Doorbell.LENGTH));
        assertInstanceOf(DoorbellIdleStrategy.class,
            IdleStrategies.parse("doorbell:100,1000,100000", new Doorbell(memory, 0), () -> false));
        assertInstanceOf(BackoffIdleStrategy.class, IdleStrategies.parse("doorbell:100,1000,100000"));
        assertInstanceOf(DoorbellIdleStrategy.class, IdleStrategies.parse(
            io.dkv.raas.RaasConfiguration.CONDUCTOR_IDLE_STRATEGY_DEFAULT, new Doorbell(memory, 0), () -> false));
    }

    @Test
    void eachCallMakesANewStrategyForItsAgent()
    {
        final IdleStrategy first = IdleStrategies.parse("backoff");
        assertNotSame(first, IdleStrategies.parse("backoff"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "spin", "backoff:1,2,3", "backoff:1,2,x,4", "backoff:1,2,1000,10", "backoff:-1,2,3,4",
        "sleep-ns", "sleep-ns:0", "yield:5", "noop:1", "doorbell", "doorbell:1,2", "doorbell:1,0,5",
        "doorbell:1,1000,10"})
    void aWrongSpecIsRefusedNamingIt(final String spec)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> IdleStrategies.parse(spec));
        assertTrue(spec.isEmpty() ? refused.getMessage().contains("no idle strategy") :
            refused.getMessage().contains("'" + spec + "'"), refused.getMessage());
    }

    @Test
    void aContextRefusesAWrongOneNamingTheSettingAndItsProperty()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new io.dkv.raas.RaasContext().pollerIdleStrategy("backoff:1,2").conclude());
        assertTrue(refused.getMessage().startsWith("pollerIdleStrategy (dkv.raas.poller.idle.strategy): ") &&
            refused.getMessage().contains("'backoff:1,2'"), refused.getMessage());
    }
}
