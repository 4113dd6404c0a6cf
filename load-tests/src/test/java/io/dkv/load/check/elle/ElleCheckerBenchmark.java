package io.dkv.load.check.elle;

import io.dkv.load.check.history.History;

/**
 * How long a check of a large generated valid history takes: a warm-up check, then timed ones. Not a test; run
 * by hand with the test class path:
 * <pre>
 * java -cp ... io.dkv.load.check.elle.ElleCheckerBenchmark [transactions [keys [processes [rounds]]]]
 * </pre>
 */
public final class ElleCheckerBenchmark
{
    private ElleCheckerBenchmark()
    {
    }

    public static void main(final String[] args)
    {
        final int transactions = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final int keys = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        final int processes = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;

        final long generateStart = System.nanoTime();
        final History history = ListAppendHistoryGenerator.generate(1, transactions, keys, processes);
        System.out.printf("generated %,d transactions over %,d keys, %d processes in %.0f ms; heap used %,d MB%n",
            transactions, keys, processes, (System.nanoTime() - generateStart) / 1e6, usedHeapMegabytes());

        final ElleChecker checker = new ElleChecker();
        System.out.println("warm-up: " + checker.check(history));
        for (int round = 1; round <= rounds; round++)
        {
            final long start = System.nanoTime();
            final ElleResult result = checker.check(history);
            System.out.printf("check %d: %.0f ms, %s%n", round, (System.nanoTime() - start) / 1e6, result);
        }
        System.out.printf("heap used after the checks %,d MB (max %,d MB)%n",
            usedHeapMegabytes(), Runtime.getRuntime().maxMemory() >> 20);
    }

    private static long usedHeapMegabytes()
    {
        final Runtime runtime = Runtime.getRuntime();
        System.gc();
        return (runtime.totalMemory() - runtime.freeMemory()) >> 20;
    }
}
