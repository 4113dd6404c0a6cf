package io.dkv.load.bench;

import io.dkv.load.bench.check.CheckBenchmark;
import io.dkv.load.bench.compute.ComputeBenchmark;
import io.dkv.load.bench.gets.GetsInFlightBenchmark;
import io.dkv.load.bench.hostile.HostileBenchmark;
import io.dkv.load.bench.keyspace.KeyspaceBenchmark;
import io.dkv.load.bench.membership.MembershipBenchmark;
import io.dkv.load.bench.raas.RaasBenchmark;
import io.dkv.load.bench.suite.RedisSuiteBenchmark;
import io.dkv.load.bench.txn.TxnBenchmark;
import io.dkv.load.bench.verbs.VerbsBenchmark;
import io.dkv.load.bench.ycsb.YcsbBenchmark;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code dkv bench}: groups the benchmarks.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Run a benchmark; each figure is reported beside a floor measured in the same run.",
    subcommands = {
        VerbsBenchmark.class,
        RaasBenchmark.class,
        YcsbBenchmark.class,
        CheckBenchmark.class,
        HostileBenchmark.class,
        ComputeBenchmark.class,
        MembershipBenchmark.class,
        GetsInFlightBenchmark.class,
        TxnBenchmark.class,
        RedisSuiteBenchmark.class,
        KeyspaceBenchmark.class
    })
public final class BenchCommand implements Runnable
{
    @Spec
    private CommandSpec spec;

    public void run()
    {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: name a benchmark");
    }
}
