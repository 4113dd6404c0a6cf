package io.dkv.verbs.ibv;

import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Every libibverbs and mlx5dv function the {@code verbs} provider calls, bound once per process: the exported ones at
 * their symbol versions, the static inline ones of the headers as calls through the function pointers they read
 * ({@code ibv_post_send} through the context's {@code ops.post_send}, {@code ibv_wr_rdma_read} through the extended
 * queue pair's {@code wr_rdma_read}, {@code mlx5dv_wr_set_dc_addr} through {@code mlx5dv_qp_ex}'s). The calls made
 * per request are critical downcalls: they neither block nor call back, and skip the thread-state transitions.
 */
final class IbvFunctions
{
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_CAPTURE = Linker.Option.captureCallState("errno");
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}; post_recv alike. */
    static final MethodHandle POST = IbvLibrary.pointerCall(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CRITICAL);
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    static final MethodHandle POLL_CQ = IbvLibrary.pointerCall(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), CRITICAL);
    /** {@code wr_start}, {@code wr_send}, {@code wr_abort}: the queue pair only. */
    static final MethodHandle WR_QP = IbvLibrary.pointerCall(FunctionDescriptor.ofVoid(ADDRESS), CRITICAL);
    static final MethodHandle WR_COMPLETE = IbvLibrary.pointerCall(FunctionDescriptor.of(JAVA_INT, ADDRESS), CRITICAL);
    /** {@code wr_rdma_read}, {@code wr_rdma_write}: rkey, remote address. */
    static final MethodHandle WR_RDMA = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG), CRITICAL);
    static final MethodHandle WR_RDMA_IMM = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT), CRITICAL);
    static final MethodHandle WR_CMP_SWP = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    static final MethodHandle WR_FETCH_ADD = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG), CRITICAL);
    static final MethodHandle WR_SEND_IMM = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), CRITICAL);
    /**
     * {@code wr_set_sge_list(qp, size_t num_sge, const struct ibv_sge *)}: the array passed as its address, a long
     * (the same integer register on x86-64 and aarch64), so that a request allocates no segment for it.
     */
    static final MethodHandle WR_SET_SGE_LIST = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** {@code wr_set_inline_data(qp, void *addr, size_t length)}, the data's address passed as a long. */
    static final MethodHandle WR_SET_INLINE_DATA = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** mlx5dv's {@code wr_set_dc_addr(mqp, struct ibv_ah *, uint32_t remote_dctn, uint64_t remote_dc_key)}. */
    static final MethodHandle WR_SET_DC_ADDR = IbvLibrary.pointerCall(
        FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG), CRITICAL);

    private static volatile IbvFunctions bound;

    final IbvDevices devices;
    final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryDevice;
    final MethodHandle queryPort;
    final MethodHandle queryGidEx;
    final MethodHandle forkInit;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle createQp;
    final MethodHandle modifyQp;
    final MethodHandle destroyQp;
    final MethodHandle createSrq;
    final MethodHandle destroySrq;
    final MethodHandle createAh;
    final MethodHandle destroyAh;
    final MethodHandle qpToQpEx;
    /** null when libmlx5 cannot be opened: {@link #mlx5Missing} says why. */
    final MethodHandle mlx5IsSupported;
    final MethodHandle mlx5CreateQp;
    final MethodHandle mlx5QpExFromIbvQpEx;
    final String mlx5Missing;

    private IbvFunctions(final IbvLibrary verbs)
    {
        devices = new IbvDevices(verbs);
        openDevice = verbs.function("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), ERRNO_CAPTURE);
        closeDevice = verbs.function("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = verbs.function("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        queryPort = verbs.function("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        queryGidEx = verbs.function("_ibv_query_gid_ex", "IBVERBS_1.11",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        forkInit = verbs.function("ibv_fork_init", FunctionDescriptor.of(JAVA_INT));
        allocPd = verbs.function("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), ERRNO_CAPTURE);
        deallocPd = verbs.function("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = verbs.function("ibv_reg_mr",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), ERRNO_CAPTURE);
        deregMr = verbs.function("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = verbs.function("ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), ERRNO_CAPTURE);
        destroyCq = verbs.function("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createQp = verbs.function("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO_CAPTURE);
        modifyQp = verbs.function("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        destroyQp = verbs.function("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createSrq = verbs.function("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO_CAPTURE);
        destroySrq = verbs.function("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createAh = verbs.function("ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), ERRNO_CAPTURE);
        destroyAh = verbs.function("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        qpToQpEx = verbs.function("ibv_qp_to_qp_ex", "IBVERBS_1.6", FunctionDescriptor.of(ADDRESS, ADDRESS));

        MethodHandle isSupported = null;
        MethodHandle createDvQp = null;
        MethodHandle qpExFrom = null;
        String missing = null;
        try
        {
            final IbvLibrary mlx5 = IbvLibrary.loadMlx5();
            isSupported = mlx5.function("mlx5dv_is_supported", "MLX5_1.8",
                FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
            createDvQp = mlx5.function("mlx5dv_create_qp", "MLX5_1.3",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS), ERRNO_CAPTURE);
            qpExFrom = mlx5.function("mlx5dv_qp_ex_from_ibv_qp_ex", "MLX5_1.10",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
        }
        catch (final VerbsException ex)
        {
            missing = ex.getMessage();
        }
        mlx5IsSupported = isSupported;
        mlx5CreateQp = createDvQp;
        mlx5QpExFromIbvQpEx = qpExFrom;
        mlx5Missing = missing;
    }

    /**
     * @return the functions, bound at the first call.
     * @throws VerbsException when libibverbs or one of its functions is missing, saying which and what to install.
     */
    static IbvFunctions bind()
    {
        IbvFunctions functions = bound;
        if (functions == null)
        {
            synchronized (IbvFunctions.class)
            {
                functions = bound;
                if (functions == null)
                {
                    functions = new IbvFunctions(IbvLibrary.load());
                    bound = functions;
                }
            }
        }
        return functions;
    }

    /** @return room for the errno a call with {@code captureCallState} leaves. */
    static MemorySegment callState(final Arena arena)
    {
        return arena.allocate(CALL_STATE);
    }

    /** @return the errno the call left in {@code state}. */
    static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    /**
     * @return {@code result}, when the call that returned it succeeded.
     * @throws VerbsException naming the call, what it was asked and errno's text, when it returned NULL.
     */
    static MemorySegment checked(final MemorySegment result, final MemorySegment state, final String call)
    {
        if (result.equals(MemorySegment.NULL))
        {
            throw failure(call, errno(state));
        }
        return result;
    }

    /**
     * @throws VerbsException naming the call and the error it returned (libibverbs returns errno values).
     */
    static void checked(final int result, final String call)
    {
        if (result != 0)
        {
            throw failure(call, Math.abs(result));
        }
    }

    /**
     * Destroy a verbs object with its {@code ibv_destroy_*}, {@code ibv_dereg_mr} or {@code ibv_dealloc_pd}, which
     * return an errno value.
     *
     * @throws VerbsException naming {@code what} and the error.
     */
    static void destroy(final MethodHandle destroy, final MemorySegment object, final String what)
    {
        try
        {
            checked((int)destroy.invokeExact(object), what);
        }
        catch (final Throwable ex)
        {
            throw unexpected(what, ex);
        }
    }

    static VerbsException failure(final String call, final int errno)
    {
        return new VerbsException(call + " failed: " + IbvLibrary.strerror(errno) + " (errno " + errno + ")");
    }

    /** @throws VerbsException wrapping what a downcall threw, which only a broken binding does. */
    static VerbsException unexpected(final String call, final Throwable ex)
    {
        if (ex instanceof VerbsException verbs)
        {
            return verbs;
        }
        return new VerbsException(call + " threw " + ex, ex);
    }
}
