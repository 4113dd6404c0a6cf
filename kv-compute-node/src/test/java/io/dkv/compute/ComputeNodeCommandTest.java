package io.dkv.compute;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.lang.reflect.Field;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ComputeNodeCommand#parseSimple}, the parse that spares a compute node's start picocli's model, sets every
 * option as picocli does, defaults included (an option added to the command but not to it shows here), and leaves
 * to picocli whatever it does not take plainly. The ready line keeps the start that launchers match.
 */
class ComputeNodeCommandTest
{
    private static final String META = "meta:1@shm:0123456789abcdef#00002001:0123456789abcdef";

    @Test
    void itSetsEachOptionAsPicocliDoes() throws Exception
    {
        for (final List<String> args : List.of(
            List.of("--meta", META, "--cluster-secret-file", "/tmp/secret"),
            List.of("--port", "0", "--meta", META + "," + META, "--cluster-secret-file=/tmp/s", "--bind", "0.0.0.0"),
            List.of("--meta=" + META, "--meta", META, "--cluster-secret-file", "s", "--requirepass", "pw",
                "--provider", "tcp", "--address", "127.0.0.1:7000", "--node-id", "42", "--max-clients", "10"),
            List.of("--reuse-port", "--meta", META, "--cluster-secret-file", "s", "--metrics-port", "0"),
            List.of("--meta", META, "--metrics-port=9100", "--cluster-secret-file", "s", "--reuse-port"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--client-output-limit", "1048576",
                "--drain-timeout-ms", "2000"),
            List.of("--driver", "dkv-up", "--port", "0"),
            List.of("--driver", "dkv-up", "--appendonly", "no", "--appendfsync=always"),
            List.of("--driver=dkv-up", "--node-id", "7", "--reuse-port", "--metrics-port", "0")))
        {
            final ComputeNodeCommand simple = ComputeNodeCommand.parseSimple(args.toArray(String[]::new));
            assertNotNull(simple, args.toString());
            final ComputeNodeCommand parsed = new ComputeNodeCommand();
            new CommandLine(parsed).parseArgs(args.toArray(String[]::new));
            assertSameOptions(parsed, simple, args.toString());
        }
    }

    @Test
    void theOptionsWithAPropertyTakeItAsTheirDefault() throws Exception
    {
        // the properties the README names were overridden by the options' constant defaults
        final String[] names = {ComputeNodeConfiguration.DRAIN_TIMEOUT_PROP_NAME,
            ComputeNodeConfiguration.MAX_CLIENTS_PROP_NAME, ComputeNodeConfiguration.METRICS_PORT_PROP_NAME,
            ComputeNodeConfiguration.OUTPUT_LIMIT_PROP_NAME};
        final String[] values = {"1234", "77", "9199", "4096"};
        for (int i = 0; i < names.length; i++)
        {
            System.setProperty(names[i], values[i]);
        }
        try
        {
            final String[] args = {"--meta", META, "--cluster-secret-file", "s"};
            final ComputeNodeCommand simple = ComputeNodeCommand.parseSimple(args);
            final ComputeNodeCommand parsed = new ComputeNodeCommand();
            new CommandLine(parsed).parseArgs(args);
            assertSameOptions(parsed, simple, "the properties set");
            assertEquals(1234L, field(simple, "drainTimeoutMs"));
            assertEquals(77, field(simple, "maxClients"));
            assertEquals(9199, field(simple, "metricsPort"));
            assertEquals(4096L, field(simple, "clientOutputLimit"));
        }
        finally
        {
            for (final String name : names)
            {
                System.clearProperty(name);
            }
        }
    }

    private static Object field(final Object command, final String name) throws Exception
    {
        final Field field = command.getClass().getDeclaredField(name);
        field.setAccessible(true);
        return field.get(command);
    }

    /** Every option of the command, those of its mixins too, holds the same value in both. */
    private static void assertSameOptions(final Object parsed, final Object simple, final String args) throws Exception
    {
        for (final Field field : parsed.getClass().getDeclaredFields())
        {
            field.setAccessible(true);
            if (field.isAnnotationPresent(Option.class))
            {
                assertEquals(field.get(parsed), field.get(simple), field.getName() + " of " + args);
            }
            else if (field.isAnnotationPresent(Mixin.class))
            {
                assertSameOptions(field.get(parsed), field.get(simple), args);
            }
        }
    }

    @Test
    void itLeavesToPicocliWhatItDoesNotTakePlainly()
    {
        for (final List<String> args : List.of(
            List.of("--help"),
            List.of("--meta", META),
            List.of("--cluster-secret-file", "s"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--port"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--port", "0x10"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--port", "-1"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--port", "1", "--port", "2"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--prot", "1"),
            List.of("--meta", META, "--cluster-secret-file", "s", "extra"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--reuse-port=true"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--reuse-port", "--reuse-port"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--reuse-port", "yes"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--metrics-port", "-1"),
            List.of("--meta", META, "--cluster-secret-file", "s", "--metrics-port"),
            List.of("--driver"),
            List.of("--driver", "a", "--driver", "b")))
        {
            assertNull(ComputeNodeCommand.parseSimple(args.toArray(String[]::new)), args.toString());
        }
    }

    @Test
    void theReadyLineKeepsItsStartAndEndsWithTheMetricsAddressWhenServed()
    {
        assertEquals("dkv compute node 7 serving RESP on 127.0.0.1:6380 (epoll) over 2 memory node(s)",
            ComputeNodeCommand.readyLine(7, "127.0.0.1", 6380, "epoll", 2, false, -1));
        assertEquals("dkv compute node 7 serving RESP on 127.0.0.1:6380 (nio) over 2 memory node(s); AUTH required",
            ComputeNodeCommand.readyLine(7, "127.0.0.1", 6380, "nio", 2, true, -1));
        final String withMetrics = ComputeNodeCommand.readyLine(7, "10.0.0.5", 6380, "epoll", 2, true, 9100);
        assertEquals("dkv compute node 7 serving RESP on 10.0.0.5:6380 (epoll) over 2 memory node(s); AUTH required; " +
            "metrics on http://10.0.0.5:9100/metrics", withMetrics);
        assertTrue(ComputeNodeCommand.readyLine(7, "::1", 6380, "epoll", 2, false, 9100)
            .endsWith(" over 2 memory node(s); metrics on http://[::1]:9100/metrics"), "an IPv6 host in brackets");
        // as ./dkv up (UpCommand) and the join benchmark (JoinPart) read it
        final Matcher ready = Pattern.compile("dkv compute node (\\d+) serving RESP on (\\S+):(\\d+) ")
            .matcher(withMetrics);
        assertTrue(ready.lookingAt(), withMetrics);
        assertEquals(List.of("7", "10.0.0.5", "6380"), List.of(ready.group(1), ready.group(2), ready.group(3)));
    }
}
