package io.dkv.raas;

import java.util.Locale;

/**
 * How a standalone driver serves an attached application when several compete (LITE's performance
 * isolation): a LATENCY application's requests are taken as soon as they are read; a BULK application's
 * wait in a queue of its own and go a few per duty cycle, as many as its weight, so a bulk application
 * saturating the driver delays a latency one by a few of its requests at most.
 */
public enum ServiceClass
{
    /** Requests taken as soon as read: for applications that wait on each request. */
    LATENCY(1),
    /** Requests taken {@code weight} per duty cycle, after every latency request read: for throughput. */
    BULK(2);

    private final int code;

    ServiceClass(final int code)
    {
        this.code = code;
    }

    /** @return the code an attach carries; 0 means "the driver's default". */
    public int code()
    {
        return code;
    }

    /** @return the class of a code, or null for 0 (the driver's default). */
    public static ServiceClass ofCode(final int code)
    {
        return switch (code)
        {
            case 0 -> null;
            case 1 -> LATENCY;
            case 2 -> BULK;
            default -> throw new IllegalArgumentException("service class code " + code + ": 0, 1 or 2");
        };
    }

    /** @throws IllegalArgumentException naming the text when it is neither latency nor bulk. */
    public static ServiceClass parse(final String text)
    {
        try
        {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("service class '" + text + "': latency or bulk");
        }
    }

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
