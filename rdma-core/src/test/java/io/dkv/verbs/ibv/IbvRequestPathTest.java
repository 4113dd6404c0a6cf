package io.dkv.verbs.ibv;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static io.dkv.verbs.ibv.IbvLayout.CQ;
import static io.dkv.verbs.ibv.IbvLayout.MLX5DV_QP_EX;
import static io.dkv.verbs.ibv.IbvLayout.QP;
import static io.dkv.verbs.ibv.IbvLayout.QP_EX;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The request path of the {@code verbs} provider, on a host without an RNIC: the provider functions it calls through
 * pointers ({@code post_send}, {@code post_recv}, {@code poll_cq}, the extended queue pair's {@code wr_*} and mlx5dv's
 * {@code wr_set_dc_addr}) are stand-ins compiled here against the installed headers, which read every request the
 * binding wrote as a real provider reads it and note each field. What they note must be what was posted; what they
 * complete must be what the binding reads back; and none of it may allocate.
 */
class IbvRequestPathTest
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static Arena arena;
    private static SymbolLookup fake;
    private static MethodHandle log;
    private static MethodHandle clear;

    @BeforeAll
    static void buildTheStandInProvider() throws Exception
    {
        final String source;
        try (InputStream in = IbvRequestPathTest.class.getResourceAsStream("fake_provider.c"))
        {
            source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        final Path library = CCompiler.compile("fake_provider", source, true);
        arena = Arena.ofShared();
        fake = SymbolLookup.libraryLookup(library, arena);
        log = LINKER.downcallHandle(function("fake_log"), FunctionDescriptor.of(ADDRESS));
        clear = LINKER.downcallHandle(function("fake_clear"), FunctionDescriptor.ofVoid());
    }

    @AfterAll
    static void unload()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    @BeforeEach
    void clearTheLog() throws Throwable
    {
        clear.invokeExact();
    }

    @Test
    void aChainOfSendRequestsReachesPostSendAsTheHeaderLaysItOut() throws Throwable
    {
        final SendWorkRequest read = new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ)
            .sendFlags(SendFlags.SIGNALED).remote(0x1000, 0xaa);
        sge(read, 0, 0x5000, 64);
        sge(read, 1, 0x6000, 32);
        read.sgList().numSge(2);
        final SendWorkRequest cas = new SendWorkRequest().wrId(2).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .remote(0x2008, 0xbb).compareAdd(5).swap(9);
        sge(cas, 0, 0x7000, 8).sgList().numSge(1);
        final SendWorkRequest send = new SendWorkRequest().wrId(3).opcode(Opcode.SEND_WITH_IMM).immData(0x1234)
            .sendFlags(SendFlags.INLINE | SendFlags.SIGNALED);
        sge(send, 0, 0x8000, 16).sgList().numSge(1);
        final IbvAddressHandle ah = addressHandle();
        final SendWorkRequest ud = new SendWorkRequest().wrId(4).opcode(Opcode.SEND).ud(ah, 0x51, 0x11111111);
        sge(ud, 0, 0x9000, 100).sgList().numSge(1);
        read.next(cas);
        cas.next(send);
        send.next(ud);

        poster(0x42, 16).post(read);

        assertEquals("""
            post_send qp=42
            send id=1 op=4 flags=2 imm=0 rdma=1000/aa sge=5000/64/11 sge=6000/32/11
            send id=2 op=5 flags=0 imm=0 atomic=2008/bb/%s/%s sge=7000/8/11
            send id=3 op=3 flags=10 imm=1234 sge=8000/16/11
            send id=4 op=2 flags=0 imm=0 ud=%s/51/11111111 sge=9000/100/11
            """.formatted(rnic(5), rnic(9), Long.toHexString(ah.nativeAddress())), log());
    }

    @Test
    void aChainLongerThanTheWrittenListIsPostedInBatchesInOrder() throws Throwable
    {
        final SendWorkRequest first = chain(70);

        poster(0x42, 128).post(first);

        final List<String> lines = log().lines().toList();
        assertEquals(72, lines.size(), "two calls of post_send and 70 requests: " + lines);
        assertEquals("post_send qp=42", lines.get(0));
        assertEquals("post_send qp=42", lines.get(65), "the second call after 64 requests");
        int id = 0;
        for (final String line : lines)
        {
            if (line.startsWith("send "))
            {
                assertTrue(line.startsWith("send id=" + id++ + " op=0 "), line);
            }
        }
    }

    @Test
    void aRefusedRequestIsNamedWithTheProvidersErrorAndThoseBeforeItArePosted() throws Throwable
    {
        final SendWorkRequest first = chain(3);
        first.next().wrId(666);

        final VerbsException refused = assertThrows(VerbsException.class, () -> poster(0x42, 16).post(first));

        assertTrue(refused.getMessage().contains("wrId=666"), refused.getMessage());
        assertTrue(refused.getMessage().contains("(errno 12)"), refused.getMessage());
        assertEquals("post_send qp=42\nsend id=0 op=0 flags=0 imm=0 rdma=0/cc sge=5000/8/11\n", log());
    }

    @Test
    void receiveRequestsReachPostRecvAndTooManyEntriesAreRefusedNamingTheRequest() throws Throwable
    {
        final RecvWorkRequest first = new RecvWorkRequest().wrId(7);
        first.sgList().sge(0).addr(0xa000).length(256).lkey(0x22);
        first.sgList().numSge(1);
        final RecvWorkRequest second = new RecvWorkRequest().wrId(8);
        second.sgList().sge(0).addr(0xb000).length(512).lkey(0x22);
        second.sgList().numSge(1);
        first.next(second);
        final RecvPoster poster = new RecvPoster(function("fake_post_recv"), qp(0x43), 8, 1, arena, "test QP");

        poster.post(first);

        assertEquals("post_recv qp=43\nrecv id=7 sge=a000/256/22\nrecv id=8 sge=b000/512/22\n", log());

        second.sgList().sge(1).addr(0xc000).length(1).lkey(0x22);
        second.sgList().numSge(2);
        final VerbsException refused = assertThrows(VerbsException.class, () -> poster.post(second));
        assertTrue(refused.getMessage().contains("wrId=8 has 2 SGEs; the queue allows 1"), refused.getMessage());
    }

    @Test
    void completionsAreReadAsPollCqWroteThem()
    {
        final MemorySegment cq = arena.allocate(CQ);
        cq.set(JAVA_INT, offset(CQ, "cqe"), 3);
        cq.set(JAVA_INT, offset(CQ, "handle"), 0x42);
        final IbvCompletionQueue queue = new IbvCompletionQueue(null, null, function("fake_poll_cq"), cq, 16);
        final WorkCompletion[] completions = {new WorkCompletion(), new WorkCompletion()};

        assertEquals(2, queue.poll(completions));
        assertEquals("wc{wrId=100, status=SUCCESS, opcode=RDMA_READ, byteLen=64, qp=0x42, srcQp=0x77}",
            completions[0].toString());
        assertEquals(WcStatus.REM_ACCESS_ERR, completions[1].status());
        assertEquals(WcOpcode.COMP_SWAP, completions[1].opcode());
        assertEquals(128, completions[1].byteLen());

        assertEquals(1, queue.poll(completions, 1));
        assertEquals(102, completions[0].wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, completions[0].opcode());
        assertTrue(completions[0].hasImm());
        assertEquals(0xabcd0002, completions[0].immData());
        assertEquals(0, queue.poll(completions));
    }

    @Test
    void aDcInitiatorsChainIsBuiltWithTheExtendedApiAndRungOnce() throws Throwable
    {
        final IbvAddressHandle ah = addressHandle();
        final MemorySegment hello = arena.allocateFrom("hello");
        final SendWorkRequest read = new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ)
            .sendFlags(SendFlags.SIGNALED).remote(0x1000, 0xaa).dc(ah, 0xd1, 0xcafe);
        sge(read, 0, 0x5000, 64).sgList().numSge(1);
        final SendWorkRequest cas = new SendWorkRequest().wrId(2).opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .remote(0x2000, 0xbb).compareAdd(3).swap(4).dc(ah, 0xd2, 0xbeef);
        sge(cas, 0, 0x7000, 8).sgList().numSge(1);
        final SendWorkRequest send = new SendWorkRequest().wrId(3).opcode(Opcode.SEND)
            .sendFlags(SendFlags.INLINE | SendFlags.SIGNALED).dc(ah, 0xd1, 0xcafe);
        send.sgList().sge(0).addr(hello.address()).length(5).lkey(0);
        send.sgList().numSge(1);
        read.next(cas);
        cas.next(send);

        dcWriter(0x99).post(read);

        final String a = Long.toHexString(ah.nativeAddress());
        assertEquals("""
            start qp=99
            read id=1 flags=2 rdma=1000/aa dc=%s/d1/cafe sge=5000/64/11
            cmp_swp id=2 flags=0 atomic=2000/bb/%s/%s dc=%s/d2/beef sge=7000/8/11
            send id=3 flags=10 dc=%s/d1/cafe inline=hello
            complete
            """.formatted(a, rnic(3), rnic(4), a, a), log());
    }

    @Test
    void aFetchAndAddIsRefusedWhereTheRnicAddsInTheHostsOtherOrder() throws Throwable
    {
        assumeTrue(AtomicByteOrder.REVERSED, "a big-endian host: the RNIC adds in the model's order");
        final SendWorkRequest add = new SendWorkRequest().wrId(9).opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .remote(0x2000, 0xbb).compareAdd(1);
        sge(add, 0, 0x7000, 8).sgList().numSge(1);

        final VerbsException rc = assertThrows(VerbsException.class, () -> poster(0x42, 16).post(add));
        add.dc(addressHandle(), 0xd1, 0xcafe);
        final VerbsException dc = assertThrows(VerbsException.class, () -> dcWriter(0x99).post(add));

        assertTrue(rc.getMessage().contains("wrId=9") && rc.getMessage().contains("FETCH_AND_ADD"), rc.getMessage());
        assertTrue(dc.getMessage().contains("FETCH_AND_ADD"), dc.getMessage());
        assertEquals("", log(), "nothing reached the provider");
    }

    @Test
    void aDcRequestWithoutATargetIsRefusedAfterThoseBeforeItArePosted() throws Throwable
    {
        final IbvAddressHandle ah = addressHandle();
        final SendWorkRequest first = new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_WRITE).remote(0x1000, 0xaa)
            .dc(ah, 0xd1, 0xcafe);
        sge(first, 0, 0x5000, 64).sgList().numSge(1);
        final SendWorkRequest second = new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_WRITE).remote(0x1000, 0xaa);
        sge(second, 0, 0x5000, 64).sgList().numSge(1);
        first.next(second);

        final VerbsException refused = assertThrows(VerbsException.class, () -> dcWriter(0x99).post(first));

        assertTrue(refused.getMessage().contains("wrId=2") &&
            refused.getMessage().contains("has no DC target's address handle"), refused.getMessage());
        assertEquals(List.of("start qp=99", "write id=1 flags=0 rdma=1000/aa dc=" +
            Long.toHexString(ah.nativeAddress()) + "/d1/cafe sge=5000/64/11", "complete"), log().lines().toList());
    }

    @Test
    void postingAndPollingAllocateNothingAfterWarmUp() throws Throwable
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        final SendPoster poster = poster(0x42, 16);
        final DcRequestWriter writer = dcWriter(0x99);
        final IbvAddressHandle ah = addressHandle();
        final SendWorkRequest oneSided = chain(4);
        final SendWorkRequest dc = chain(4);
        for (SendWorkRequest wr = dc; wr != null; wr = wr.next())
        {
            wr.dc(ah, 0xd1, 0xcafe);
        }
        final MemorySegment cq = arena.allocate(CQ);
        final IbvCompletionQueue queue = new IbvCompletionQueue(null, null, function("fake_poll_cq"), cq, 16);
        final WorkCompletion[] completions = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        final long pending = offset(CQ, "cqe");
        final Runnable iteration = () ->
        {
            try
            {
                clear.invokeExact();
                poster.post(oneSided);
                writer.post(dc);
                cq.set(JAVA_INT, pending, 3);
                queue.poll(completions);
            }
            catch (final Throwable ex)
            {
                throw new AssertionError(ex);
            }
        };
        for (int i = 0; i < 20_000; i++)
        {
            iteration.run();
        }
        final long id = Thread.currentThread().threadId();
        final long cost = -threads.getThreadAllocatedBytes(id) + threads.getThreadAllocatedBytes(id);
        // a path that allocates does so in every window; a one-off of the JVM's (a recompilation on a loaded
        // machine) lands in one window at most, so one clean window of five shows the path allocates nothing
        final long[] windows = new long[5];
        for (int w = 0; w < windows.length; w++)
        {
            final long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 5_000; i++)
            {
                iteration.run();
            }
            windows[w] = threads.getThreadAllocatedBytes(id) - before - cost;
            if (windows[w] == 0)
            {
                return;
            }
        }
        assertEquals(0, Arrays.stream(windows).min().orElseThrow(),
            "bytes allocated over each of five windows of 5,000 iterations of post, post on DC, poll: " +
            Arrays.toString(windows));
    }

    /**
     * @return how the RNIC's log shows a compare-and-swap operand: the model's word is big-endian, a little-endian
     * host's RNIC works in host order, so the binding reverses it there.
     */
    private static String rnic(final long operand)
    {
        return Long.toHexString(AtomicByteOrder.REVERSED ? Long.reverseBytes(operand) : operand);
    }

    private static SendPoster poster(final int qpNum, final int maxWr)
    {
        return new SendPoster(function("fake_post_send"), qp(qpNum), maxWr, 4, arena, "test QP");
    }

    private static DcRequestWriter dcWriter(final int qpNum)
    {
        final MemorySegment qpEx = arena.allocate(QP_EX);
        qpEx.set(JAVA_INT, offset(QP_EX, "qp_base", "qp_num"), qpNum);
        for (final String name : List.of("wr_start", "wr_complete", "wr_abort", "wr_rdma_read", "wr_rdma_write",
            "wr_rdma_write_imm", "wr_send", "wr_send_imm", "wr_atomic_cmp_swp", "wr_atomic_fetch_add",
            "wr_set_sge_list", "wr_set_inline_data"))
        {
            qpEx.set(ADDRESS, offset(QP_EX, name), function("fake_" + name));
        }
        final MemorySegment dv = arena.allocate(MLX5DV_QP_EX);
        dv.set(ADDRESS, offset(MLX5DV_QP_EX, "wr_set_dc_addr"), function("fake_wr_set_dc_addr"));
        return new DcRequestWriter(qpEx, dv, qpNum, 16, 4, 64, arena);
    }

    private static MemorySegment qp(final int qpNum)
    {
        final MemorySegment qp = arena.allocate(QP);
        qp.set(JAVA_INT, offset(QP, "qp_num"), qpNum);
        return qp;
    }

    private static IbvAddressHandle addressHandle()
    {
        return new IbvAddressHandle(null, null, arena.allocate(64, 8), PortAddress.verbs(new byte[16], 1, 5));
    }

    /** @return {@code count} RDMA WRITEs of 8 bytes, linked, their ids 0 up. */
    private static SendWorkRequest chain(final int count)
    {
        SendWorkRequest first = null;
        SendWorkRequest last = null;
        for (int i = 0; i < count; i++)
        {
            final SendWorkRequest wr = new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE).remote(0, 0xcc);
            sge(wr, 0, 0x5000, 8).sgList().numSge(1);
            if (last == null)
            {
                first = wr;
            }
            else
            {
                last.next(wr);
            }
            last = wr;
        }
        return first;
    }

    private static SendWorkRequest sge(final SendWorkRequest wr, final int index, final long addr, final int length)
    {
        wr.sgList().sge(index).addr(addr).length(length).lkey(0x11);
        return wr;
    }

    private static MemorySegment function(final String name)
    {
        return fake.find(name).orElseThrow(() -> new AssertionError("the stand-in provider has no " + name));
    }

    private static String log() throws Throwable
    {
        return ((MemorySegment)log.invokeExact()).reinterpret(1 << 20).getString(0);
    }
}
