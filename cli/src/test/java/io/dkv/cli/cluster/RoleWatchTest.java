package io.dkv.cli.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code dkv up} says of a role that died, and how often it restarts one: the command to start it again is one
 * a shell takes word for word, an exit by a signal is named, a restart's log does not overwrite the dead one's, a role
 * dying the third time within a minute is left dead, and a relayed log gives whole lines only.
 */
class RoleWatchTest
{
    @TempDir
    Path dir;

    @Test
    void theCommandToStartARoleAgainQuotesOnlyWhatAShellWouldSplit()
    {
        assertEquals("./dkv memory-node --node-id 101 --meta meta:1@shm:52da#00002001:68e0 " +
            "--data-dir '/tmp/my dir/d' --name 'it'\\''s' '' '#x'", RoleWatch.command(List.of("memory-node",
            "--node-id", "101", "--meta", "meta:1@shm:52da#00002001:68e0", "--data-dir", "/tmp/my dir/d", "--name",
            "it's", "", "#x")));
    }

    @Test
    void anExitBySignalIsNamed()
    {
        assertEquals("status 137 (SIGKILL)", RoleWatch.exitStatus(137));
        assertEquals("status 143 (SIGTERM)", RoleWatch.exitStatus(143));
        assertEquals("status 1", RoleWatch.exitStatus(1));
    }

    @Test
    void aRestartsLogIsNamedAfterTheFirstWithItsCount()
    {
        assertEquals("compute-node-201.restart-1.log", RoleWatch.restartLogName("compute-node-201.log", 1));
        assertEquals("meta.restart-2.log", RoleWatch.restartLogName("meta.restart-1.log", 2));
    }

    @Test
    void theThirdDeathWithinAMinuteIsNotRestarted()
    {
        final RestartBudget budget = new RestartBudget();
        assertTrue(budget.died(0));
        assertTrue(budget.died(10_000));
        assertFalse(budget.died(59_999), "3 within 60 s");
    }

    @Test
    void deathsAMinuteApartAreEachRestarted()
    {
        final RestartBudget budget = new RestartBudget();
        for (int i = 0; i < 10; i++)
        {
            assertTrue(budget.died(i * 30_000L), "death " + i + ": at most 2 within any 60 s");
        }
    }

    @Test
    void aRelayedLogGivesTheLinesAddedAndWaitsForALineToEnd() throws Exception
    {
        final Path log = dir.resolve("autoscale.log");
        Files.writeString(log, "dkv autoscale 10:00:00.000: serving\n");
        final LogRelay relay = LogRelay.fromEnd(log);
        assertEquals(List.of(), relay.newLines(), "what was there before is not repeated");
        Files.writeString(log, "dkv autoscale 10:00:15.000: holding at 1\ndkv autoscale 10:00:30",
            StandardOpenOption.APPEND);
        assertEquals(List.of("dkv autoscale 10:00:15.000: holding at 1"), relay.newLines());
        Files.writeString(log, ".000: holding at 1\n", StandardOpenOption.APPEND);
        assertEquals(List.of("dkv autoscale 10:00:30.000: holding at 1"), relay.newLines());
    }
}
