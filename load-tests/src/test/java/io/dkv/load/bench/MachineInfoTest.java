package io.dkv.load.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CPU model is read from /proc/cpuinfo when it is there, and unknown when it is not.
 */
class MachineInfoTest
{
    @Test
    void readsTheModelNameOfTheFirstProcessor(@TempDir final Path dir) throws IOException
    {
        final Path cpuInfo = Files.writeString(dir.resolve("cpuinfo"),
            "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\nprocessor\t: 1\nmodel name\t: other\n");
        assertEquals("AMD EPYC 7B13", MachineInfo.cpuModel(cpuInfo));
    }

    @Test
    void isUnknownWithoutCpuInfo(@TempDir final Path dir)
    {
        assertEquals("unknown", MachineInfo.cpuModel(dir.resolve("missing")));
    }

    @Test
    void describesThisMachine()
    {
        final MachineInfo machine = MachineInfo.current();
        assertEquals(Runtime.getRuntime().availableProcessors(), machine.cores());
        assertTrue(machine.jdk().startsWith(Runtime.version().toString()), machine.jdk());
    }
}
