package io.dkv.load.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CPU model is read from /proc/cpuinfo when it is there, and unknown when it is not; a report describes the
 * machine in three lines.
 */
class MachineInfoTest
{
    @Test
    void readsTheModelNameOfTheFirstProcessor(@TempDir final Path dir) throws IOException
    {
        final Path cpuInfo = Files.writeString(dir.resolve("cpuinfo"),
            "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\nprocessor\t: 1\nmodel name\t: " +
            "other\n");
        assertEquals("AMD EPYC 7B13", MachineInfo.cpuModel(cpuInfo));
    }

    @Test
    void isUnknownWithoutCpuInfo(@TempDir final Path dir)
    {
        assertEquals("unknown", MachineInfo.cpuModel(dir.resolve("missing")));
    }

    @Test
    void describesThisMachineInTheThreeLinesAReportPrints()
    {
        final List<String> lines = MachineInfo.current().lines();
        assertEquals(3, lines.size(), lines::toString);
        assertTrue(lines.get(0).matches("machine: [1-9][0-9]* cores, .+"), lines.get(0));
        assertTrue(lines.get(1).startsWith("jdk: " + Runtime.version() + " (" + System.getProperty("java.vm.name")),
            lines.get(1));
        assertTrue(lines.get(2).startsWith("os: " + System.getProperty("os.name")) &&
            lines.get(2).endsWith(" " + System.getProperty("os.arch")), lines.get(2));
    }

    @Test
    void readsThisMachinesModelWhereItsCpuInfoNamesOne() throws IOException
    {
        final Path cpuInfo = Path.of("/proc/cpuinfo");
        assumeTrue(Files.isReadable(cpuInfo), "no readable /proc/cpuinfo on this machine");
        assumeTrue(Files.readAllLines(cpuInfo).stream().anyMatch(line -> line.startsWith("model name")),
            "this machine's /proc/cpuinfo names no model");
        assertNotEquals("unknown", MachineInfo.current().cpuModel());
    }
}
