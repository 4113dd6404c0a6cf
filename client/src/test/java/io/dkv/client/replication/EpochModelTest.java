package io.dkv.client.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Durable epochs explored exhaustively ({@link EpochModel}): two nodes, three transactions (one across both nodes, one
 * that reads it, one blind overwrite), the epoch moving on three times, every node or one node crashing at every
 * state. The design comes back with exactly the transactions at or below the durable epoch; each rule left out
 * brings back a state no run of the transactions leaves, or loses more than the epochs not yet durable.
 */
class EpochModelTest
{
    @Test
    void everyCrashComesBackAsTheTransactionsAtOrBelowTheDurableEpoch()
    {
        final Explorer.Result result = Explorer.explore(new EpochModel(EpochModel.Variant.DESIGN), true);
        System.out.println(result);
        assertTrue(result.holds(), result::toString);
        assertTrue(result.terminalStates() > 0, "nothing explored: " + result);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "NO_VERSIONS, torn",
        "READ_BELOW, ' '",
        "BLIND_BELOW, ' '",
        "CURRENT_ONLY, ' '",
        "NO_PREVIOUS, ' '",
        "MARK_IGNORES_IN_FLIGHT, ' '",
        "UNKNOWN_CLIENT_UNCOUNTED, ' '",
        "DROP_BY_OWN, ' '",
        "NO_ROLLBACK, 'node '",
        "SOURCE_LEFT_OUT, 'node '"})
    void eachRuleLeftOutIsCaught(final EpochModel.Variant variant, final String expected)
    {
        final Explorer.Result result = Explorer.explore(new EpochModel(variant), true);
        System.out.println(result);
        assertFalse(result.holds(), "not caught: " + result);
        assertTrue(result.counterexample().contains(expected), result::toString);
    }
}
