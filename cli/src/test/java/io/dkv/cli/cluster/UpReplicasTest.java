package io.dkv.cli.cluster;

import io.dkv.cli.DkvMain;
import io.dkv.load.CommandRun;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv up --replicas R}: a count no MetaServer keeps is refused before anything starts; more
 * copies than memory nodes is allowed, with a note that each key is kept once per node.
 */
class UpReplicasTest
{
    private final CommandRun dkv = new CommandRun(DkvMain::commandLine);

    @Test
    void aCountBelowOneOrAboveSevenIsRefusedBeforeAnythingStarts()
    {
        assertEquals(1, dkv.run("up", "--replicas", "0"));
        assertTrue(dkv.err().contains("--replicas 0 is not in [1, 7]"), dkv::err);
        assertTrue(!dkv.out().contains("starting"), dkv::out);
        assertEquals("--replicas 8 is not in [1, 7]: a key needs at least one copy",
            assertThrows(IllegalArgumentException.class, () -> UpCommand.replicasNote(8, 2)).getMessage());
    }

    @Test
    void moreCopiesThanMemoryNodesIsANoteNotAnError()
    {
        assertEquals("dkv up: note: --replicas 3 with 2 memory nodes: each key is kept on min(3, members) = 2 of " +
            "them until more memory nodes join", UpCommand.replicasNote(3, 2));
        assertNull(UpCommand.replicasNote(2, 2));
        assertNull(UpCommand.replicasNote(null, 1), "none given: the MetaServer's count, said by the MetaServer");
    }

    @Test
    void theHelpSaysWhatTheCountDoes()
    {
        assertEquals(0, dkv.run("up", "--help"));
        assertTrue(dkv.out().contains("--replicas"), dkv::out);
    }
}
