package io.dkv.load.check.workload;

import io.dkv.checker.history.Op;
import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.store.MapStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The register workload writes a value never written before with every write and compare-and-set, and a
 * compare-and-set expects what its client last learnt the key holds.
 */
class RegisterWorkloadTest
{
    @Test
    void everyWriteAndCompareAndSetOfEveryClientWritesAValueNeverWrittenBefore()
    {
        // two client JVMs, each its own workload object, their processes numbered apart as dkv check numbers them
        final List<RegisterWorkload> clients = List.of(new RegisterWorkload(2, 0.2, 0.4), new RegisterWorkload(2, 0.2,
            0.4));
        final Random random = new Random(5);
        final Set<Long> written = new HashSet<>();
        int writes = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final int client = i % 2;
            final int process = client * CheckCluster.PROCESSES_PER_CLIENT + random.nextInt(3);
            final Workload.Invocation invocation = clients.get(client).next(random, process);
            if (Op.WRITE.equals(invocation.f()))
            {
                writes++;
                assertTrue(written.add((Long)invocation.value()), () -> "written twice: " + invocation);
            }
            else if (Op.CAS.equals(invocation.f()))
            {
                writes++;
                assertTrue(written.add((Long)((List<?>)invocation.value()).get(1)), () -> "written twice: " +
                    invocation);
            }
        }
        assertTrue(writes > 15_000, writes + " writes and compare-and-sets");
    }

    @Test
    void aCompareAndSetExpectsWhatItsClientLastReadWroteOrSetUnderTheKey()
    {
        final RegisterWorkload workload = new RegisterWorkload(1, 0, 0);
        final MapStore store = new MapStore();
        final Random random = new Random(3);

        final Workload.Invocation first = workload.next(random, 7);
        assertNull(((List<?>)first.value()).getFirst(), "nothing learnt: the key is expected absent");
        workload.execute(store, first, Long.MAX_VALUE);
        // a chain of compare-and-sets by one client each finds what the one before set
        Object expected = ((List<?>)first.value()).get(1);
        for (int i = 0; i < 10; i++)
        {
            final Workload.Invocation cas = workload.next(random, 7);
            assertEquals(expected, ((List<?>)cas.value()).getFirst());
            workload.execute(store, cas, Long.MAX_VALUE);
            expected = ((List<?>)cas.value()).get(1);
        }

        // another client's write is learnt by reading it
        store.put("r0", RegisterWorkload.encode(99L));
        assertEquals(99L, workload.execute(store, new Workload.Invocation(Op.READ, "r0", null), Long.MAX_VALUE));
        assertEquals(99L, ((List<?>)workload.next(random, 7).value()).getFirst());
    }

    @Test
    void theFinalReadsReadEveryKeyOnce()
    {
        final List<String> registers = new ArrayList<>();
        for (final Workload.Invocation read : new RegisterWorkload(3, 0.5, 0.25).finalReads())
        {
            assertEquals(Op.READ, read.f());
            registers.add(read.target());
        }
        assertEquals(List.of("r0", "r1", "r2"), registers);

        final List<String> lists = new ArrayList<>();
        for (final Workload.Invocation read : new ListAppendWorkload(2, 0.5).finalReads())
        {
            assertEquals(Op.TXN, read.f());
            lists.add(read.target());
        }
        assertEquals(List.of("l0", "l1"), lists);
    }
}
