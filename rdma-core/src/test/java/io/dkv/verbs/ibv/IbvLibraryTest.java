package io.dkv.verbs.ibv;

import io.dkv.verbs.VerbsException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * libibverbs opened through {@code java.lang.foreign}: each function bound at the symbol version the binding is
 * written for, not whichever the loader calls default; the devices listed (none on a host without an RNIC, which
 * is then said, with where to look); a missing library or symbol refused, naming it and what to install. Skipped,
 * saying why, where libibverbs is not installed (.ci/run installs it).
 */
class IbvLibraryTest
{
    private static IbvLibrary library;

    @BeforeAll
    static void openTheLibrary()
    {
        try
        {
            library = IbvLibrary.load();
        }
        catch (final VerbsException ex)
        {
            assumeTrue(false, ex.getMessage());
        }
    }

    @Test
    void eachFunctionIsBoundAtTheVersionTheBindingIsWrittenFor()
    {
        // the library exports the 1.0 ABI's functions under the same names: the binding must not get those
        for (final String function : List.of("ibv_get_device_list", "ibv_open_device", "ibv_reg_mr", "ibv_create_qp",
            "ibv_modify_qp", "ibv_query_port"))
        {
            final MemorySegment current = library.address(function, IbvLibrary.VERSION);
            final MemorySegment compat = library.address(function, "IBVERBS_1.0");
            assertNotEquals(compat.address(), current.address(), function + "@" + IbvLibrary.VERSION);
        }
    }

    @Test
    void theDevicesAreListedOrTheirAbsenceIsSaidWithWhereToLook()
    {
        final String reason = IbvDevices.unavailableReason();
        final List<String> names;
        try
        {
            names = new IbvDevices(library).names();
        }
        catch (final VerbsException ex)
        {
            // a host whose kernel has no RDMA device interface (this project's CI machines): errno and where to look
            assertEquals(ex.getMessage(), reason);
            assertTrue(reason.startsWith("ibv_get_device_list failed: ") && reason.contains("(errno "), reason);
            assertTrue(reason.endsWith(IbvDevices.NO_KERNEL), reason);
            return;
        }
        if (names.isEmpty())
        {
            assertEquals(IbvDevices.NO_DEVICE, reason);
            assertTrue(reason.contains("ls /dev/infiniband"), reason);
        }
        else
        {
            assertNull(reason, "devices " + names);
            names.forEach(name -> assertFalse(name.isBlank(), "a device name: " + names));
        }
    }

    @Test
    void aMissingLibraryOrSymbolIsRefusedNamingItAndWhatToDo()
    {
        final VerbsException noLibrary =
            assertThrows(VerbsException.class, () -> IbvLibrary.open("libibverbs-missing.so.9"));
        assertTrue(noLibrary.getMessage().contains("libibverbs-missing.so.9"), noLibrary.getMessage());
        assertTrue(noLibrary.getMessage().contains("apt-get install libibverbs1 ibverbs-providers"),
            noLibrary.getMessage());

        final VerbsException noSymbol =
            assertThrows(VerbsException.class, () -> library.address("ibv_get_device_list", "IBVERBS_9.9"));
        assertTrue(noSymbol.getMessage().contains("ibv_get_device_list@IBVERBS_9.9"), noSymbol.getMessage());
    }
}
