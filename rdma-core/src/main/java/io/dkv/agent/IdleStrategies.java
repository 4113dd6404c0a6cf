package io.dkv.agent;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * Idle strategies by name, as a property or an option gives them, so that an operator picks how an agent waits for
 * work: spinning costs a core and answers soonest; backing off to parking shares the cores, which is what a small
 * host (2 cores, several dkv processes) needs.
 *
 * <pre>
 *   backoff                                  Agrona's BackoffIdleStrategy with dkv's defaults (below)
 *   backoff:SPINS,YIELDS,MIN_PARK_NS,MAX_PARK_NS
 *   doorbell:SPINS,MIN_SLEEP_NS,MAX_SLEEP_NS spin, then sleep on the agent's doorbell ({@link DoorbellIdleStrategy}),
 *                                            woken when work is rung for; an agent with no doorbell parks instead
 *   sleep-ns:NS                              park for NS nanoseconds each idle turn
 *   yield                                    Thread.yield()
 *   busy-spin                                Thread.onSpinWait()
 *   noop                                     return at once
 * </pre>
 */
public final class IdleStrategies
{
    /** 100 spins, 100 yields, then parking from 1 µs up to 1 ms: light on a shared host, a few µs after idling. */
    public static final String BACKOFF_DEFAULT = "backoff:100,100,1000,1000000";

    private IdleStrategies()
    {
    }

    /**
     * @param spec a strategy as above.
     * @return a new strategy (each agent needs its own: they keep state).
     * @throws IllegalArgumentException naming the spec and what is wrong with it.
     */
    public static IdleStrategy parse(final String spec)
    {
        return parse(spec, null, null);
    }

    /**
     * @param spec        a strategy as above.
     * @param doorbell    the doorbell the agent's work is rung on, for {@code doorbell}; null where there is none.
     * @param workWaiting whether work was rung for that the agent has not taken yet (with the doorbell).
     * @return a new strategy (each agent needs its own: they keep state).
     * @throws IllegalArgumentException naming the spec and what is wrong with it.
     */
    public static IdleStrategy parse(final String spec, final Doorbell doorbell, final BooleanSupplier workWaiting)
    {
        if (spec == null || spec.isBlank())
        {
            throw new IllegalArgumentException("no idle strategy given: one of " + names());
        }
        final String text = spec.trim();
        final int colon = text.indexOf(':');
        final String name = colon < 0 ? text : text.substring(0, colon);
        final String arguments = colon < 0 ? null : text.substring(colon + 1);
        return switch (name)
        {
            case "backoff" -> arguments == null ? parse(BACKOFF_DEFAULT) : backoff(spec, arguments);
            case "doorbell" -> doorbell(spec, required(spec, arguments, "SPINS,MIN_SLEEP_NS,MAX_SLEEP_NS"), doorbell,
                workWaiting);
            case "sleep-ns" -> new SleepingIdleStrategy(positive(spec, required(spec, arguments, "NS"), "NS"));
            case "yield" -> none(spec, arguments, new YieldingIdleStrategy());
            case "busy-spin" -> none(spec, arguments, new BusySpinIdleStrategy());
            case "noop" -> none(spec, arguments, new NoOpIdleStrategy());
            default -> throw new IllegalArgumentException("unknown idle strategy '" + spec + "': one of " + names());
        };
    }

    /**
     * Check a configured strategy.
     *
     * @param setting the setting and property it came from, for the message.
     * @throws IllegalArgumentException naming the setting, the spec and what is wrong.
     */
    public static void require(final String setting, final String spec)
    {
        try
        {
            parse(spec);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(setting + ": " + ex.getMessage(), ex);
        }
    }

    private static IdleStrategy backoff(final String spec, final String arguments)
    {
        final long[] values = values(spec, arguments, "backoff", "SPINS", "YIELDS", "MIN_PARK_NS", "MAX_PARK_NS");
        return new BackoffIdleStrategy(values[0], values[1], values[2], values[3]);
    }

    private static IdleStrategy doorbell(final String spec, final String arguments, final Doorbell doorbell,
        final BooleanSupplier workWaiting)
    {
        final long[] values = values(spec, arguments, "doorbell", "SPINS", "MIN_SLEEP_NS", "MAX_SLEEP_NS");
        if (values[0] > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "': SPINS " + values[0] + " is more than " +
                Integer.MAX_VALUE);
        }
        return doorbell == null ? new BackoffIdleStrategy(values[0], 0, values[1], values[2]) :
            new DoorbellIdleStrategy(doorbell, workWaiting, (int)values[0], values[1], values[2]);
    }

    /**
     * @param names the values' names, the last two a least and a most time.
     * @return the values, checked: as many as named, none negative, the times above 0 and in order.
     */
    private static long[] values(final String spec, final String arguments, final String name, final String... names)
    {
        final String[] texts = arguments.split(",", -1);
        if (texts.length != names.length)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "' needs " + names.length + " values: " +
                name + ":" + String.join(",", names));
        }
        final long[] values = new long[names.length];
        for (int i = 0; i < names.length; i++)
        {
            values[i] = positive(spec, texts[i], names[i]);
        }
        final int least = names.length - 2;
        if (values[least + 1] < values[least])
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "': " + names[least + 1] + " " +
                values[least + 1] + " is less than " + names[least] + " " + values[least]);
        }
        return values;
    }

    private static String required(final String spec, final String arguments, final String what)
    {
        if (arguments == null)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "' needs " + what + " after a ':'");
        }
        return arguments;
    }

    private static IdleStrategy none(final String spec, final String arguments, final IdleStrategy strategy)
    {
        if (arguments != null)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "' takes no values");
        }
        return strategy;
    }

    private static long positive(final String spec, final String value, final String what)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "': " + what + " '" + value +
                "' is not a number", ex);
        }
        if (parsed < 0 || ("NS".equals(what) || what.endsWith("PARK_NS") || what.endsWith("SLEEP_NS")) && parsed == 0)
        {
            throw new IllegalArgumentException("idle strategy '" + spec + "': " + what + " must be " +
                (what.endsWith("NS") ? "above 0" : "0 or more") + ", not " + parsed);
        }
        return parsed;
    }

    private static String names()
    {
        return "backoff[:SPINS,YIELDS,MIN_PARK_NS,MAX_PARK_NS], doorbell:SPINS,MIN_SLEEP_NS,MAX_SLEEP_NS, " +
            "sleep-ns:NS, yield, busy-spin, noop";
    }
}
