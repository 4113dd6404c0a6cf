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
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The RDMA devices libibverbs finds on this host ({@code ibv_get_device_list}): their names, and when there are none
 * (or the kernel offers none at all), why the {@code verbs} provider cannot run and what to look at.
 */
public final class IbvDevices
{
    /** What to look at on a host where the library finds no device. */
    static final String NO_DEVICE = "libibverbs finds no RDMA device on this host (ls /dev/infiniband; ibv_devices " +
        "from ibverbs-utils lists them): an RNIC needs its kernel driver loaded and its user-space provider " +
        "(ibverbs-providers)";

    /** Why the library may fail to list devices at all: the kernel side is missing. */
    static final String NO_KERNEL = "the kernel offers no RDMA devices here (/sys/class/infiniband_verbs is " +
        "missing): an RNIC needs its kernel driver and the ib_uverbs module loaded";

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final MethodHandle getDeviceList;
    private final MethodHandle freeDeviceList;
    private final MethodHandle getDeviceName;

    /** @param library where the functions are bound. */
    public IbvDevices(final IbvLibrary library)
    {
        getDeviceList = library.function("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS),
            Linker.Option.captureCallState("errno"));
        freeDeviceList = library.function("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = library.function("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /**
     * @return the names of the devices found now (mlx5_0, rxe0 ...), in the library's order.
     * @throws VerbsException when the library cannot list them (it says why: errno's text).
     */
    public List<String> names()
    {
        final List<String> names = new ArrayList<>();
        walk(names, (device, name) -> null);
        return names;
    }

    /** An opened device: its name, its context ({@code struct ibv_context *}) and whether mlx5dv drives it. */
    record Opened(String name, MemorySegment context, boolean mlx5)
    {
    }

    /**
     * Open a device, as {@code ibv_open_device}.
     *
     * @param wanted    its name; null: the first listed.
     * @param functions where the open and mlx5 functions are bound.
     * @return the opened device.
     * @throws VerbsException when no device has the name (naming those there), or the open fails (errno's text).
     */
    Opened open(final String wanted, final IbvFunctions functions)
    {
        final List<String> names = new ArrayList<>();
        final Opened opened = walk(names, (device, name) ->
        {
            if (wanted != null && !wanted.equals(name))
            {
                return null;
            }
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = arena.allocate(CALL_STATE);
                final MemorySegment context = IbvFunctions.checked(
                    (MemorySegment)functions.openDevice.invokeExact(state, device), state,
                    "ibv_open_device(" + name + ")");
                final boolean mlx5 = functions.mlx5IsSupported != null &&
                    (boolean)functions.mlx5IsSupported.invokeExact(device);
                return new Opened(name, context, mlx5);
            }
        });
        if (opened == null)
        {
            throw new VerbsException(names.isEmpty() ? NO_DEVICE : "no RDMA device is named '" + wanted +
                "' (dkv.verbs.ibv.device); those here: " + names);
        }
        return opened;
    }

    /** What is done with each device listed: a result ends the walk. */
    private interface Visit<T>
    {
        T device(MemorySegment device, String name) throws Throwable;
    }

    /**
     * List the devices and visit each ({@code struct ibv_device *} and name) while the list is held, adding each name
     * to {@code names}; the list is freed after.
     *
     * @return the first result a visit gave, or null.
     */
    private <T> T walk(final List<String> names, final Visit<T> visit)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CALL_STATE);
            final MemorySegment count = arena.allocate(JAVA_INT);
            final MemorySegment list = (MemorySegment)getDeviceList.invokeExact(state, count);
            if (list.equals(MemorySegment.NULL))
            {
                final int errno = (int)ERRNO.get(state, 0L);
                throw new VerbsException("ibv_get_device_list failed: " + IbvLibrary.strerror(errno) + " (errno " +
                    errno + "): " + NO_KERNEL);
            }
            try
            {
                final int devices = count.get(JAVA_INT, 0);
                final MemorySegment entries = list.reinterpret(ADDRESS.byteSize() * (devices + 1L));
                for (int i = 0; i < devices; i++)
                {
                    final MemorySegment device = entries.getAtIndex(ADDRESS, i);
                    final String name = ((MemorySegment)getDeviceName.invokeExact(device)).reinterpret(64).getString(0);
                    names.add(name);
                    final T result = visit.device(device, name);
                    if (result != null)
                    {
                        return result;
                    }
                }
                return null;
            }
            finally
            {
                freeDeviceList.invokeExact(list);
            }
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("listing the RDMA devices", ex);
        }
    }

    /**
     * @return null when at least one device is there, else why the {@code verbs} provider cannot run here and what
     * to do: the library missing (which packages), or no device (where to look).
     */
    public static String unavailableReason()
    {
        try
        {
            return new IbvDevices(IbvLibrary.load()).names().isEmpty() ? NO_DEVICE : null;
        }
        catch (final VerbsException ex)
        {
            return ex.getMessage();
        }
    }
}
