package io.dkv.compute;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The compute node options {@code ./dkv autoscale} hands every node it starts: a node behind the host's driver
 * ({@code --driver}) is given the driver's name and needs no MetaServer or secret; one with a driver of its own is
 * given the cluster.
 */
class ComputeNodeOptionsTest
{
    @Command(name = "nodes")
    static final class Nodes
    {
        @Mixin
        ComputeNodeOptions options = new ComputeNodeOptions();
    }

    private static ComputeNodeOptions parse(final String... args)
    {
        final Nodes nodes = new Nodes();
        new CommandLine(nodes).parseArgs(args);
        return nodes.options;
    }

    @Test
    void nodesBehindTheHostsDriverAreGivenItsNameAndNotTheCluster()
    {
        final ComputeNodeOptions options = parse("--driver", "dkv-up", "--bind", "127.0.0.1");

        options.requireCluster();
        assertEquals(List.of("--port", "7000", "--bind", "127.0.0.1", "--driver", "dkv-up"), options.arguments(7000));
    }

    @Test
    void nodesWithDriversOfTheirOwnAreGivenTheClusterAndNeedIt(@TempDir final Path dir) throws Exception
    {
        final Path secret = Files.writeString(dir.resolve("secret"), "00112233445566778899aabbccddeeff");
        final ComputeNodeOptions options =
            parse("--meta", "meta:1@shm:0a#01:02", "--cluster-secret-file", secret.toString(), "--provider", "tcp");

        options.requireCluster();
        assertEquals(List.of("--port", "7000", "--bind", ComputeNodeConfiguration.BIND_DEFAULT, "--provider", "tcp",
            "--meta", "meta:1@shm:0a#01:02", "--cluster-secret-file", secret.toString()), options.arguments(7000));
        assertThrows(CommandLine.ParameterException.class, () -> parse("--provider", "tcp").requireCluster());
    }

    @Test
    void appendonlyAndAppendfsyncReachTheNodesOnlyAsGivenSoThatNodesLeftToTheDefaultMayFallBack()
    {
        assertEquals(List.of("--port", "7000", "--bind", "127.0.0.1", "--driver", "dkv-up", "--appendfsync",
            "always"), parse("--driver", "dkv-up", "--bind", "127.0.0.1", "--appendfsync", "always").arguments(7000));
        assertEquals(List.of("--port", "7000", "--bind", "127.0.0.1", "--driver", "dkv-up", "--appendonly", "no"),
            parse("--driver", "dkv-up", "--bind", "127.0.0.1", "--appendonly", "no").arguments(7000));
    }
}
