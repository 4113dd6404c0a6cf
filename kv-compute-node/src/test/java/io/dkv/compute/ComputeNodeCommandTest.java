package io.dkv.compute;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.lang.reflect.Field;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link ComputeNodeCommand#parseSimple}, the parse that spares a compute node's start picocli's model, sets every
 * option as picocli does, defaults included (an option added to the command but not to it shows here), and leaves
 * to picocli whatever it does not take plainly.
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
                "--provider", "tcp", "--address", "127.0.0.1:7000", "--node-id", "42", "--max-clients", "10")))
        {
            final ComputeNodeCommand simple = ComputeNodeCommand.parseSimple(args.toArray(String[]::new));
            assertNotNull(simple, args.toString());
            final ComputeNodeCommand parsed = new ComputeNodeCommand();
            new CommandLine(parsed).parseArgs(args.toArray(String[]::new));
            for (final Field field : ComputeNodeCommand.class.getDeclaredFields())
            {
                if (field.isAnnotationPresent(Option.class))
                {
                    field.setAccessible(true);
                    assertEquals(field.get(parsed), field.get(simple), field.getName() + " of " + args);
                }
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
            List.of("--meta", META, "--cluster-secret-file", "s", "extra")))
        {
            assertNull(ComputeNodeCommand.parseSimple(args.toArray(String[]::new)), args.toString());
        }
    }
}
