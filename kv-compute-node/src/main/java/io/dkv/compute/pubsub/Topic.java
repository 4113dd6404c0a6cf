package io.dkv.compute.pubsub;

import java.util.Arrays;

/**
 * What a connection subscribes to: a channel, a pattern of channels, or a shard channel (SSUBSCRIBE's, a namespace of
 * its own), by its bytes.
 *
 * @param kind  {@link #CHANNEL}, {@link #PATTERN} or {@link #SHARD}.
 * @param name  the channel's or pattern's bytes; not changed once made.
 */
public record Topic(byte kind, byte[] name)
{
    public static final byte CHANNEL = 0;
    public static final byte PATTERN = 1;
    public static final byte SHARD = 2;

    public Topic
    {
        if (kind < CHANNEL || kind > SHARD)
        {
            throw new IllegalArgumentException("topic kind " + kind + ": 0, 1 or 2");
        }
    }

    public boolean equals(final Object other)
    {
        return other instanceof Topic topic && topic.kind == kind && Arrays.equals(topic.name, name);
    }

    public int hashCode()
    {
        return 31 * Arrays.hashCode(name) + kind;
    }

    public String toString()
    {
        return (kind == CHANNEL ? "channel " : kind == PATTERN ? "pattern " : "shard channel ") +
            new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
