package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Faults at once never share a role, and where keys have several copies only one memory node is struck at a time.
 */
class StruckRolesTest
{
    private static final Role DRIVER = role(CheckCluster.DRIVER);
    private static final Role NODE_101 = role(CheckCluster.MEMORY_NODE + 101);
    private static final Role NODE_102 = role(CheckCluster.MEMORY_NODE + 102);

    @Test
    void aRoleUnderOneFaultIsNotStruckByAnotherUntilItIsReleased()
    {
        final StruckRoles struck = new StruckRoles(false);

        assertNull(struck.take(DRIVER, false));
        assertNotNull(struck.take(DRIVER, false));
        struck.release(DRIVER);
        assertNull(struck.take(DRIVER, false));
    }

    @Test
    void withSeveralCopiesOneMemoryNodeAtATimeWithOneCopyAny()
    {
        final StruckRoles copies = new StruckRoles(true);
        assertNull(copies.take(NODE_101, true));
        assertNotNull(copies.take(NODE_102, true));
        assertNull(copies.take(DRIVER, false));
        copies.release(NODE_101);
        assertNull(copies.take(NODE_102, true));

        final StruckRoles oneCopy = new StruckRoles(false);
        assertNull(oneCopy.take(NODE_101, true));
        assertNull(oneCopy.take(NODE_102, true));
    }

    private static Role role(final String name)
    {
        return new Role(name, "64m", incarnation -> List.of(), Pattern.compile("ready"), Path.of("."), "unused",
            List.of());
    }
}
