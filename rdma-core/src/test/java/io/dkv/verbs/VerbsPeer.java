package io.dkv.verbs;

import org.agrona.BitUtil;
import org.agrona.CloseHelper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A verbs peer in a process of its own, driven by a test through {@link ChildProcess}: one command
 * per stdin line, one reply per command on stdout, {@code ok [VALUES]} or {@code error REASON}.
 * The end of stdin closes the device and ends the process.
 *
 * <pre>
 * open PROVIDER IP:PORT REGION_BYTES MAX_SEND_SIZE   ok PORT_ADDRESS REGION_ADDRESS RKEY
 * rc                                                 ok QPN
 * connect PORT_ADDRESS QPN                           ok                the RC QP is in RTS
 * dct DC_KEY                                         ok DCT_NUMBER     with an SRQ
 * dci PORT_ADDRESS DCT_NUMBER DC_KEY                 ok                a DCI in RTS aimed at that target
 * fill OFFSET LENGTH SEED                            ok                pseudo-random bytes into the region
 * check OFFSET LENGTH SEED                           ok                the region holds what fill wrote
 * set-word OFFSET VALUE                              ok                big-endian, as atomics see it
 * word OFFSET                                        ok VALUE
 * post rc|dc OPCODE LOCAL_OFFSET LENGTH REMOTE_ADDRESS RKEY COMPARE_ADD SWAP
 *                                                    ok [ORIGINAL]     once completed successfully
 * recv rc|srq OFFSET LENGTH                          ok                a receive request is posted
 * await-recv                                         ok BYTE_LEN OPCODE
 * arm LOCAL_OFFSET REMOTE_ADDRESS RKEY FAA CAS       ok                go then runs the increments
 * go                                                 ok FAA CAS CAS_RETRIES START_MS END_MS
 * </pre>
 */
public final class VerbsPeer
{
    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration INCREMENT_BUDGET = Duration.ofSeconds(45);

    /**
     * What one process's increment loop achieved.
     *
     * @param faa         successful fetch-and-adds.
     * @param cas         successful compare-and-swap increments.
     * @param casRetries  compare-and-swaps that found another value than expected, each retried.
     * @param startMillis wall clock when the loop began.
     * @param endMillis   wall clock when it ended.
     */
    record Increments(int faa, int cas, long casRetries, long startMillis, long endMillis)
    {
    }

    private final SendWorkRequest wr = new SendWorkRequest();
    private final RecvWorkRequest recvWr = new RecvWorkRequest();
    private Device device;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private MemoryRegion region;
    private Completions completions;
    private QueuePair rc;
    private SharedReceiveQueue srq;
    private DcTarget dct;
    private QueuePair dci;
    private AddressHandle dcAh;
    private int dcNumber;
    private long dcKey;
    private long nextWrId = 1;
    private String[] armed;

    public static void main(final String[] args) throws IOException
    {
        final VerbsPeer peer = new VerbsPeer();
        final PrintStream out = System.out;
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                String reply;
                try
                {
                    reply = peer.execute(line.trim().split(" +"));
                }
                catch (final Throwable ex)
                {
                    ex.printStackTrace();
                    reply = "error " + String.valueOf(ex).replace('\n', ' ');
                }
                out.println(reply);
                out.flush();
            }
        }
        finally
        {
            peer.close();
        }
        System.exit(0);
    }

    private String execute(final String[] words)
    {
        return switch (words[0])
        {
            case "open" -> open(words[1], words[2], Long.parseLong(words[3]), Integer.parseInt(words[4]));
            case "rc" -> createRc();
            case "connect" -> connect(PortAddress.parse(words[1]), Integer.parseInt(words[2]));
            case "dct" -> createDct(Long.parseLong(words[1]));
            case "dci" -> createDci(PortAddress.parse(words[1]), Integer.parseInt(words[2]), Long.parseLong(words[3]));
            case "fill" -> fill(Long.parseLong(words[1]), Integer.parseInt(words[2]), Long.parseLong(words[3]));
            case "check" -> check(Long.parseLong(words[1]), Integer.parseInt(words[2]), Long.parseLong(words[3]));
            case "set-word" -> setWord(Long.parseLong(words[1]), Long.parseLong(words[2]));
            case "word" -> "ok " + region.segment().get(BE_LONG, Long.parseLong(words[1]));
            case "post" -> post(words);
            case "recv" -> postRecv(words[1], Long.parseLong(words[2]), Integer.parseInt(words[3]));
            case "await-recv" -> awaitRecv();
            case "arm" -> arm(words);
            case "go" -> go();
            default -> "error unknown command '" + String.join(" ", words) + "'";
        };
    }

    private String open(final String provider, final String tcpAddress, final long regionBytes, final int maxSendSize)
    {
        final VerbsContext context =
            new VerbsContext().provider(provider).tcpAddress(tcpAddress).maxSendSize(maxSendSize);
        // a shm receive ring must hold several of the largest SENDs
        final int ringCapacity = BitUtil.findNextPositivePowerOfTwo(8 * (maxSendSize + 64));
        context.shmRingCapacity(Math.max(context.shmRingCapacity(), ringCapacity));
        device = Verbs.open(context);
        pd = device.allocPd();
        sendCq = device.createCq(1024);
        recvCq = device.createCq(1024);
        region = pd.allocate(regionBytes, Access.ALL);
        completions = new Completions(sendCq, recvCq);
        return "ok " + device.address() + " " + region.address() + " " + region.rkey();
    }

    private String createRc()
    {
        rc = pd.createQp(new QpInitAttributes().type(QpType.RC).sendCq(sendCq).recvCq(recvCq));
        return "ok " + rc.qpNum();
    }

    private String connect(final PortAddress peer, final int peerQpn)
    {
        rc.modify(QpAttributes.init(Access.ALL));
        rc.modify(QpAttributes.rtr(peer, peerQpn));
        rc.modify(QpAttributes.rts());
        return "ok";
    }

    private String createDct(final long key)
    {
        srq = pd.createSrq(64, 1);
        dct = pd.createDct(new DctInitAttributes().cq(recvCq).srq(srq).dcKey(key));
        return "ok " + dct.dctNumber();
    }

    private String createDci(final PortAddress target, final int dctNumber, final long key)
    {
        dci = pd.createQp(new QpInitAttributes().type(QpType.DCI).cq(sendCq));
        dci.modify(QpAttributes.init(0));
        dci.modify(QpAttributes.rtr());
        dci.modify(QpAttributes.rts());
        dcAh = pd.createAh(target);
        dcNumber = dctNumber;
        dcKey = key;
        return "ok";
    }

    static byte[] pattern(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private String fill(final long offset, final int length, final long seed)
    {
        region.segment().asSlice(offset, length).copyFrom(MemorySegment.ofArray(pattern(length, seed)));
        return "ok";
    }

    private String check(final long offset, final int length, final long seed)
    {
        final byte[] expected = pattern(length, seed);
        final byte[] actual = region.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
        final int mismatch = Arrays.mismatch(expected, actual);
        if (mismatch >= 0)
        {
            return "error " + length + " bytes at offset " + offset + " differ from pattern " + seed +
                " first at byte " + mismatch + " (expected " + expected[mismatch] + ", found " + actual[mismatch] + ")";
        }
        return "ok";
    }

    private String setWord(final long offset, final long value)
    {
        region.segment().set(BE_LONG, offset, value);
        return "ok";
    }

    private String post(final String[] words)
    {
        final boolean viaDc = words[1].equals("dc");
        final QueuePair qp = viaDc ? dci : rc;
        final Opcode opcode = Opcode.valueOf(words[2]);
        final long localOffset = Long.parseLong(words[3]);
        final long wrId = nextWrId++;
        wr.reset()
            .wrId(wrId)
            .opcode(opcode)
            .sendFlags(SendFlags.SIGNALED)
            .local(region, localOffset, Integer.parseInt(words[4]))
            .remote(Long.parseLong(words[5]), Integer.parseInt(words[6]))
            .compareAdd(Long.parseLong(words[7]))
            .swap(Long.parseLong(words[8]));
        if (viaDc)
        {
            wr.dc(dcAh, dcNumber, dcKey);
        }
        qp.postSend(wr);
        final Completions.Wc wc = completions.await(sendCq, 1, COMPLETION_TIMEOUT).get(0);
        if (wc.status() != WcStatus.SUCCESS || wc.wrId() != wrId || wc.opcode() != opcode.completionOpcode())
        {
            return "error " + opcode + " wrId=" + wrId + " completed as " + wc;
        }
        return opcode.isAtomic() ? "ok " + region.segment().get(BE_LONG, localOffset) : "ok";
    }

    private String postRecv(final String queue, final long offset, final int length)
    {
        recvWr.wrId(nextWrId++).local(region, offset, length);
        if (queue.equals("srq"))
        {
            srq.postRecv(recvWr);
        }
        else
        {
            rc.postRecv(recvWr);
        }
        return "ok";
    }

    private String awaitRecv()
    {
        final Completions.Wc wc = completions.await(recvCq, 1, COMPLETION_TIMEOUT).get(0);
        if (wc.status() != WcStatus.SUCCESS)
        {
            return "error receive completed as " + wc;
        }
        return "ok " + wc.byteLen() + " " + wc.opcode();
    }

    private String arm(final String[] words)
    {
        armed = words;
        return "ok";
    }

    private String go()
    {
        final Increments result = increment(rc, sendCq, region, Long.parseLong(armed[1]), Long.parseLong(armed[2]),
            Integer.parseInt(armed[3]), Integer.parseInt(armed[4]), Integer.parseInt(armed[5]));
        return "ok " + result.faa() + " " + result.cas() + " " + result.casRetries() + " " + result.startMillis() +
            " " + result.endMillis();
    }

    /**
     * Add one to a remote word {@code faaCount} times by fetch-and-add and {@code casCount} times by
     * compare-and-swap, alternating, one request at a time. A compare-and-swap that finds another
     * value retries with the value it found until its swap succeeds, so only successful increments
     * are counted.
     *
     * @param qp          an RC QP in RTS whose responder holds the word.
     * @param cq          {@code qp}'s send CQ, polled by nothing else meanwhile.
     * @param local       region of the 8-byte result buffer.
     * @param localOffset where in it the original value lands.
     * @throws IllegalStateException on an error completion or when the budget runs out.
     */
    static Increments increment(
        final QueuePair qp,
        final CompletionQueue cq,
        final MemoryRegion local,
        final long localOffset,
        final long remoteAddress,
        final int rkey,
        final int faaCount,
        final int casCount)
    {
        final SendWorkRequest faa = new SendWorkRequest()
            .opcode(Opcode.ATOMIC_FETCH_AND_ADD)
            .sendFlags(SendFlags.SIGNALED)
            .local(local, localOffset, 8)
            .remote(remoteAddress, rkey)
            .compareAdd(1);
        final SendWorkRequest cas = new SendWorkRequest()
            .opcode(Opcode.ATOMIC_CMP_AND_SWP)
            .sendFlags(SendFlags.SIGNALED)
            .local(local, localOffset, 8)
            .remote(remoteAddress, rkey);
        final WorkCompletion[] wc = { new WorkCompletion() };
        final long deadline = System.nanoTime() + INCREMENT_BUDGET.toNanos();
        final long startMillis = System.currentTimeMillis();
        int faaDone = 0;
        int casDone = 0;
        long casRetries = 0;
        long expected = 0;
        long wrId = 0;
        while (faaDone < faaCount || casDone < casCount)
        {
            if (faaDone < faaCount)
            {
                faa.wrId(++wrId);
                // after our add the word is at least one more than it was: the best guess for the next swap
                expected = execute(qp, cq, faa, wc, local, localOffset, deadline) + 1;
                faaDone++;
            }
            if (casDone < casCount)
            {
                while (true)
                {
                    cas.wrId(++wrId).compareAdd(expected).swap(expected + 1);
                    final long original = execute(qp, cq, cas, wc, local, localOffset, deadline);
                    if (original == expected)
                    {
                        expected++;
                        casDone++;
                        break;
                    }
                    casRetries++;
                    expected = original;
                }
            }
        }
        return new Increments(faaDone, casDone, casRetries, startMillis, System.currentTimeMillis());
    }

    private static long execute(
        final QueuePair qp,
        final CompletionQueue cq,
        final SendWorkRequest wr,
        final WorkCompletion[] wc,
        final MemoryRegion local,
        final long localOffset,
        final long deadline)
    {
        qp.postSend(wr);
        while (cq.poll(wc, 1) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(wr + " did not complete within the increment budget " +
                    INCREMENT_BUDGET);
            }
            if (Thread.currentThread().isInterrupted())
            {
                throw new IllegalStateException("interrupted while " + wr + " was outstanding");
            }
            // the responder, or this process's NIC engine, may need this core
            Thread.yield();
        }
        if (wc[0].status() != WcStatus.SUCCESS || wc[0].wrId() != wr.wrId())
        {
            throw new IllegalStateException(wr + " completed with " + wc[0].status() + " (wrId " + wc[0].wrId() + ")");
        }
        return local.segment().get(BE_LONG, localOffset);
    }

    private void close()
    {
        if (device != null)
        {
            CloseHelper.quietCloseAll(dcAh, dci, dct, srq, rc);
            device.close();
        }
    }
}
