package io.dkv.load.check.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A role's incarnations are numbered once each, started or not: a client whose start failed has had its history file
 * listed, and a restart given the same number would list it again and have the merge read it twice.
 */
class RoleTest
{
    @TempDir
    Path logs;

    @Test
    void aStartThatFailsUsesUpItsIncarnation()
    {
        final List<Integer> incarnations = new ArrayList<>();
        final Role role = new Role("a role that cannot start", "64m", incarnation ->
        {
            incarnations.add(incarnation);
            return List.of("no-such-command");
        }, Pattern.compile("never printed"), logs, "failing", List.of());

        assertThrows(RuntimeException.class, role::start);
        assertThrows(RuntimeException.class, role::start);

        assertEquals(List.of(0, 1), incarnations);
    }
}
