package io.dkv.compute;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Replies as {@link RawResp} prints them, read back: an aggregate's bulk elements, and whole scans by cursor. */
final class ScanReplies
{
    private static final Pattern SCAN_REPLY = Pattern.compile("\\*2\\[\\$(\\d+), \\*(\\d+)\\[(.*)]]");

    private ScanReplies()
    {
    }

    /** @return the bulk strings of an array, map or set reply, in its order. */
    static List<String> elements(final String reply)
    {
        assertTrue(reply.startsWith("*") || reply.startsWith("%") || reply.startsWith("~"), reply);
        final String list = reply.substring(reply.indexOf('[') + 1, reply.length() - 1);
        if (list.isEmpty())
        {
            return List.of();
        }
        return Arrays.stream(list.split(", ")).map(element ->
        {
            assertTrue(element.startsWith("$"), element);
            return element.substring(1);
        }).toList();
    }

    /**
     * @param head    the command before its cursor: {@code SCAN}, or {@code HSCAN key}, {@code SSCAN key}.
     * @param options what follows the cursor (MATCH, COUNT, TYPE).
     * @return every element of a whole scan, step after step until the cursor comes back to 0.
     */
    static List<String> scanAll(final RawResp server, final List<String> head, final String... options)
        throws IOException
    {
        final List<String> found = new ArrayList<>();
        String cursor = "0";
        do
        {
            final List<String> command = new ArrayList<>(head);
            command.add(cursor);
            command.addAll(Arrays.asList(options));
            final String reply = server.call(command.toArray(new String[0]));
            final Matcher matcher = SCAN_REPLY.matcher(reply);
            assertTrue(matcher.matches(), reply);
            cursor = matcher.group(1);
            found.addAll(elements("*[" + matcher.group(3) + "]"));
        }
        while (!cursor.equals("0"));
        return found;
    }
}
