package io.dkv.compute.interest;

import java.util.Arrays;

/**
 * What a node tells its peers it has: subscribers of a channel, a pattern of channels, or a shard channel
 * (SSUBSCRIBE's, a namespace of its own), or connections blocked on a key (BLPOP's); by its bytes.
 *
 * @param kind  {@link #CHANNEL}, {@link #PATTERN}, {@link #SHARD} or {@link #KEY}.
 * @param name  the channel's or pattern's bytes; not changed once made.
 */
public record Topic(byte kind, byte[] name)
{
    public static final byte CHANNEL = 0;
    public static final byte PATTERN = 1;
    public static final byte SHARD = 2;
    public static final byte KEY = 3;

    public Topic
    {
        if (kind < CHANNEL || kind > KEY)
        {
            throw new IllegalArgumentException("topic kind " + kind + ": 0, 1, 2 or 3");
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
        return (kind == CHANNEL ? "channel " : kind == PATTERN ? "pattern " : kind == SHARD ? "shard channel " :
            "key ") +
            new String(name, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
