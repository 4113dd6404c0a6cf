package io.dkv.checker;

import io.dkv.checker.elle.ElleChecker;
import io.dkv.checker.elle.ElleResult;
import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.HistoryRecorder;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;
import io.dkv.checker.linear.LinearizabilityChecker;
import io.dkv.checker.linear.LinearizabilityResult;
import io.dkv.checker.timeline.Judgement;
import io.dkv.checker.timeline.TimelineHtml;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The code of the module's README, so that it compiles against the real API and {@link ReadmeExampleTest} runs it:
 * the README's code blocks are these methods' bodies, word for word (the test checks), less some returns.
 */
final class ReadmeExample
{
    private ReadmeExample()
    {
    }

    static LinearizabilityResult recordAndCheckRegisters(final Path file) throws InterruptedException
    {
        final Map<String, Long> store = new ConcurrentHashMap<>(); // the system under test
        try (HistoryRecorder recorder = new HistoryRecorder(file))
        {
            final Thread[] clients = new Thread[4];
            for (int c = 0; c < clients.length; c++)
            {
                final int process = c; // one operation at a time per process
                clients[c] = Thread.ofPlatform().start(() ->
                {
                    for (long i = 0; i < 100; i++)
                    {
                        final String key = "k" + i % 3;
                        final Op write = recorder.invoke(process, Op.WRITE, key, i);
                        store.put(key, i);
                        recorder.ok(write, i);

                        final Op read = recorder.invoke(process, Op.READ, key, null);
                        recorder.ok(read, store.get(key)); // null: the key is absent

                        final Op cas = recorder.invoke(process, Op.CAS, key, List.of(i, i + 1));
                        if (store.replace(key, i, i + 1))
                        {
                            recorder.ok(cas, cas.value());
                        }
                        else
                        {
                            recorder.fail(cas, "the register did not hold " + i); // surely took no effect
                        }
                    }
                });
            }
            for (final Thread client : clients)
            {
                client.join();
            }
        }

        final History history = HistoryJson.read(file); // or recorder.history(), in memory
        final LinearizabilityResult result = new LinearizabilityChecker(Duration.ofSeconds(30)).check(history);
        System.out.println(result.toText()); // "linearizability: VALID", keys valid, invalid, unknown
        return result;
    }

    static LinearizabilityResult checkStaleRead(final Path file)
    {
        final LinearizabilityResult result = new LinearizabilityChecker().check(HistoryJson.read(file));
        // INVALID, failing key x: no order puts the read after the write and lets it find nothing
        System.out.println(result.verdict() + " " + result.failingKey() + "\n" + result.explanation().toText());
        return result;
    }

    static ElleResult recordAndCheckListAppend()
    {
        final HistoryRecorder recorder = new HistoryRecorder(null); // in memory only
        final Op t1 = recorder.invoke(0, Op.TXN, null, List.of(List.of(Op.APPEND, "x", 1L)));
        recorder.ok(t1, List.of(List.of(Op.APPEND, "x", 1L)));

        // a read's list is unknown at invocation (null) and known at completion
        final Op t2 = recorder.invoke(1, Op.TXN, null,
            List.of(List.of(Op.APPEND, "x", 2L), Arrays.asList(Op.READ_LIST, "x", null)));
        recorder.ok(t2, List.of(List.of(Op.APPEND, "x", 2L), List.of(Op.READ_LIST, "x", List.of(1L, 2L))));

        final Op t3 = recorder.invoke(0, Op.TXN, null, List.of(Arrays.asList(Op.READ_LIST, "x", null)));
        recorder.ok(t3, List.of(List.of(Op.READ_LIST, "x", List.of(2L, 1L)))); // the order t2 read, reversed

        final ElleResult result = new ElleChecker(ElleChecker.Model.STRICT_SERIALIZABLE).check(recorder.history());
        System.out.println(result.toText()); // INVALID [incompatible-order], with the two reads as witnesses
        return result;
    }

    static String timeline(final History history, final LinearizabilityResult result)
    {
        final Set<Long> failing = new HashSet<>(); // drawn red
        for (final Operation operation : result.failingOperations())
        {
            failing.add(operation.invoke().index());
        }
        final Judgement judgement =
            new Judgement("linearizability", result.verdict().name(), result.toText(), failing);
        return TimelineHtml.render("registers", history, judgement, List.of()); // write it to timeline.html
    }
}
