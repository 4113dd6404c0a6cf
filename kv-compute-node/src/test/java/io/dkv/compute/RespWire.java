package io.dkv.compute;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Requests as a client writes them, in one buffer, and the replies an embedded connection wrote: for tests. */
final class RespWire
{
    private RespWire()
    {
    }

    /** @return the requests (their words, "|" between two) as RESP arrays of bulk strings, in one buffer. */
    static ByteBuf requests(final String... words)
    {
        final List<List<String>> requests = new ArrayList<>();
        requests.add(new ArrayList<>());
        for (final String word : words)
        {
            if (word.equals("|"))
            {
                requests.add(new ArrayList<>());
            }
            else
            {
                requests.getLast().add(word);
            }
        }
        final StringBuilder wire = new StringBuilder();
        for (final List<String> request : requests)
        {
            wire.append('*').append(request.size()).append("\r\n");
            for (final String word : request)
            {
                wire.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                    .append("\r\n");
            }
        }
        return Unpooled.copiedBuffer(wire, StandardCharsets.UTF_8);
    }

    /** @return every reply the channel flushed, taken from it, as text. */
    static String replies(final EmbeddedChannel channel)
    {
        final StringBuilder replies = new StringBuilder();
        ByteBuf out;
        while ((out = channel.readOutbound()) != null)
        {
            replies.append(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        return replies.toString();
    }
}
