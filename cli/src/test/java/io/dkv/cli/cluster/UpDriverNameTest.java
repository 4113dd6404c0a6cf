package io.dkv.cli.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A driver's name is one per host: {@code dkv up} with the default directory names its driver "dkv-up", and one run
 * in a directory of its own (a test's, or a second cluster) a name of that directory, so that both run at once.
 */
class UpDriverNameTest
{
    @Test
    void theDefaultDirectoryNamesTheDriverDkvUp()
    {
        assertEquals("dkv-up", UpCommand.driverName(null));
    }

    @Test
    void eachDirectoryNamesADriverOfItsOwnAndTheSameOneEachTime(@TempDir final Path root)
    {
        final String first = UpCommand.driverName(root.resolve("first"));
        final String second = UpCommand.driverName(root.resolve("second"));
        assertNotEquals(first, second);
        assertNotEquals("dkv-up", first);
        assertEquals(first, UpCommand.driverName(root.resolve("second").resolve("..").resolve("first")),
            "the same directory, however it is written");
        assertTrue(first.matches("dkv-up-[0-9a-f]{8}"), first);
    }
}
