package io.dkv.verbs;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote atomics from two processes on one word: this JVM owns the word and increments it through
 * a loopback RC connection while a child JVM increments it through its own RC connection, by
 * fetch-and-add and by compare-and-swap loops at the same time. Not one increment may be lost.
 */
class CrossProcessAtomicsTest
{
    private static final int TOTAL_INCREMENTS = 100_000;
    private static final int FAA_PER_PROCESS = TOTAL_INCREMENTS / 4;
    private static final int CAS_PER_PROCESS = TOTAL_INCREMENTS / 4;
    private static final long RESULT_OFFSET = 0;
    private static final long WORD_OFFSET = 4096;
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(50);

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    @Timeout(60)
    void concurrentFetchAndAddAndCompareAndSwapFromTwoProcessesLoseNoIncrement(final String provider)
    {
        try (TestNode node = TestNode.open(provider);
            ChildProcess child = ChildProcess.start(provider + " atomics child", List.of(), VerbsPeer.class))
        {
            final String[] opened = child.call("open " + provider + " 127.0.0.1:0 4096 65536");
            final PortAddress childAddress = PortAddress.parse(opened[0]);
            final int childQpn = Integer.parseInt(child.call("rc")[0]);

            final QueuePair childFacing = node.qp(QpType.RC);
            node.bringUp(childFacing, childAddress, childQpn);
            child.call("connect " + node.device.address() + " " + childFacing.qpNum());

            final QueuePair initiator = node.qp(QpType.RC);
            final QueuePair loopback = node.qp(QpType.RC);
            node.bringUp(initiator, node.device.address(), loopback.qpNum());
            node.bringUp(loopback, node.device.address(), initiator.qpNum());

            final long wordAddress = node.region.address() + WORD_OFFSET;
            final int rkey = node.region.rkey();
            child.call("arm 0 " + wordAddress + " " + rkey + " " + FAA_PER_PROCESS + " " + CAS_PER_PROCESS);

            child.send("go");
            final VerbsPeer.Increments own;
            try
            {
                own = VerbsPeer.increment(
                    initiator, node.cq, node.region, RESULT_OFFSET, wordAddress, rkey, FAA_PER_PROCESS,
                    CAS_PER_PROCESS);
            }
            catch (final IllegalStateException ex)
            {
                throw child.failure("was running while this process's increments failed: " + ex);
            }
            final String[] theirs = child.awaitOk("go", RUN_TIMEOUT);

            final int childFaa = Integer.parseInt(theirs[0]);
            final int childCas = Integer.parseInt(theirs[1]);
            final long childRetries = Long.parseLong(theirs[2]);
            final long childStart = Long.parseLong(theirs[3]);
            final long childEnd = Long.parseLong(theirs[4]);
            final String summary = "this process " + own + ", child faa=" + childFaa + " cas=" + childCas +
                " casRetries=" + childRetries + " ms=[" + childStart + ", " + childEnd + "]";
            System.out.println(provider + ": " + summary);

            final Supplier<String> details = () -> summary + "; " + child.describe();
            assertEquals(FAA_PER_PROCESS, own.faa(), details);
            assertEquals(CAS_PER_PROCESS, own.cas(), details);
            assertEquals(FAA_PER_PROCESS, childFaa, details);
            assertEquals(CAS_PER_PROCESS, childCas, details);
            assertTrue(own.startMillis() <= childEnd && childStart <= own.endMillis(),
                () -> "the two processes never ran at the same time: " + details.get());
            assertEquals(TOTAL_INCREMENTS, node.region.segment().get(VerbsPeer.BE_LONG, WORD_OFFSET), details);
        }
    }
}
