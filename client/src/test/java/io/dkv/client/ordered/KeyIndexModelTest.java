package io.dkv.client.ordered;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dkv.client.ordered.KeyIndexModel.Variant.CORRECT;
import static io.dkv.client.ordered.KeyIndexModel.Variant.READS_NOT_CHECKED;
import static io.dkv.client.ordered.KeyIndexModel.check;
import static io.dkv.client.ordered.KeyIndexModel.insert;
import static io.dkv.client.ordered.KeyIndexModel.remove;
import static io.dkv.client.ordered.KeyIndexModel.scan;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exhaustive model check of an ordered keyspace's index, a B-link tree (client/README.md, "Ordered keyspaces"): the
 * real {@link KeyIndex} run by two or three clients at once over a model of the store's transactions, every
 * interleaving of their reads and commits, from hints taken before any of them began (so walks start from stale
 * inner nodes and move right). Nodes of 32 bytes hold two keys, so inserts split leaves, parents and the
 * root while others walk and scan, and a remove empties a leaf that merges into its neighbour. Checked at every
 * commit: each level's nodes chained in order by right links, high keys and separators agreeing with the keys, no
 * node left behind; at every end: the keys are the serial outcome of the commits, and every scan saw the serial state
 * at its commit. Broken form it must catch: reads whose commit does not check them (a scan then sees a state no
 * instant held).
 */
class KeyIndexModelTest
{
    @Test
    void concurrentInsertsSplittingLeavesAndTheRootBesideAScanKeepTheTreeAndTheScanWhole()
    {
        assertTrue(check(CORRECT, List.of("b", "d", "f"), List.of(insert("c"), insert("e"), scan("a", 10))) > 100);
        assertTrue(check(CORRECT, List.of("b", "d", "f", "h", "j"), List.of(insert("c"), insert("i"),
            scan("c", 3))) > 100);
        assertTrue(check(CORRECT, List.of("b", "d", "f", "h", "j"), List.of(insert("c"), insert("e"), insert("k"),
            scan("a", 10))) > 1_000);
    }

    @Test
    void insertsAndRemovesThatSplitAndMergeKeepEveryKey()
    {
        check(CORRECT, List.of("b", "d", "f", "h"), List.of(insert("e"), remove("b"), remove("d")));
        check(CORRECT, List.of("b", "d", "f", "h", "j", "l"), List.of(remove("h"), insert("g"), scan("e", 4)));
    }

    @Test
    void readsTheCommitDoesNotCheckLetAScanSeeAStateNoInstantHeld()
    {
        final AssertionError error = assertThrows(AssertionError.class, () -> check(READS_NOT_CHECKED,
            List.of("b", "d", "f", "h"), List.of(insert("c"), remove("h"), scan("a", 10))));
        assertTrue(error.getMessage().contains("a scan saw another state"), error.getMessage());
    }
}
