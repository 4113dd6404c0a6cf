package io.dkv.client.ordered;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dkv.client.ordered.TreeModel.Variant.CORRECT;
import static io.dkv.client.ordered.TreeModel.Variant.ENDS_NOT_KEPT;
import static io.dkv.client.ordered.TreeModel.Variant.HEADER_NOT_CHECKED;
import static io.dkv.client.ordered.TreeModel.Variant.HEADER_ONLY_WHEN_SHAPE_CHANGES;
import static io.dkv.client.ordered.TreeModel.check;
import static io.dkv.client.ordered.TreeModel.insert;
import static io.dkv.client.ordered.TreeModel.read;
import static io.dkv.client.ordered.TreeModel.remove;
import static io.dkv.client.ordered.TreeModel.transfer;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exhaustive model check of concurrent changes of one ordered tree (client/README.md, "Sorted sets and lists"): the
 * real {@link OrderedTree} code run by two or three clients at once, each change a transaction that reads the header
 * (checked at commit), peeks nodes one step at a time, and commits its nodes and the header at once if the header is
 * unchanged, else starts over. Every interleaving of the clients' reads and commits is explored (each client's state
 * is what it has read: its change is run again over those reads to take its next step). Nodes hold two or three
 * elements, so the changes split and merge nodes and grow and shrink the tree. Checked at every commit: the tree's
 * shape ({@link TreeChecks}: the header's end paths too), that no node is left behind; at every end: the elements
 * are the serial outcome of the committed changes, every read saw the state the committed changes made up to its
 * commit. Broken forms it must catch: a header read without the commit checking it; the header rewritten only when
 * the tree's shape or count changed (so a value's change in a leaf is not seen by a reader's check); end paths a
 * change does not keep.
 */
class OrderedTreeModelTest
{
    @Test
    void concurrentInsertsThatSplitLeavesAndTheRootKeepEveryKey()
    {
        final long explored = check(CORRECT, List.of("k1", "k2", "k4"), List.of(insert("k3"), insert("k5"),
            read()));
        assertTrue(explored > 100, "states " + explored);
        check(CORRECT, List.of("k1", "k2", "k3", "k4"), List.of(insert("k0"), insert("k5"), insert("k25")));
        assertTrue(check(CORRECT, List.of("k1", "k2", "k3", "k4"), List.of(insert("k0"), insert("k25"), remove("k3"),
            read())) > 1_000);
    }

    @Test
    void concurrentRemovesThatMergeNodesAndInsertsKeepTheTreeWhole()
    {
        check(CORRECT, List.of("k1", "k2", "k3", "k4", "k5", "k6"), List.of(remove("k2"), remove("k5"),
            insert("k35"), read()));
        check(CORRECT, List.of("k1", "k2", "k3"), List.of(remove("k1"), remove("k3"), remove("k2")));
    }

    @Test
    void aChangeThatReadsBesideSplitsRunsAgainRatherThanFail()
    {
        // a transfer walking from a header read before a split would miss an element the split moved: the nodes'
        // stamps tell it the view is torn, and it runs again rather than fail
        check(CORRECT, List.of("a", "b", "c", "d"), List.of(insert("b1"), insert("c1"), transfer("a", "d")));
    }

    @Test
    void transfersBetweenElementsAreSeenWholeByReaders()
    {
        check(CORRECT, List.of("a", "b", "c", "d", "e"), List.of(transfer("a", "e"), transfer("e", "c"),
            read()));
    }

    @Test
    void aHeaderTheCommitDoesNotCheckLosesInserts()
    {
        final AssertionError error = violation(HEADER_NOT_CHECKED, List.of("k1", "k2", "k4"),
            List.of(insert("k3"), insert("k5")));
        assertNotNull(error, "the broken variant should have been caught");
    }

    @Test
    void aHeaderRewrittenOnlyWhenTheShapeChangesLetsAReaderSeeHalfATransfer()
    {
        assertNull(violation(CORRECT, List.of("a", "b", "c", "d", "e"), List.of(transfer("a", "e"), read())));
        final AssertionError error = violation(HEADER_ONLY_WHEN_SHAPE_CHANGES, List.of("a", "b", "c", "d",
            "e"), List.of(transfer("a", "e"), read()));
        assertNotNull(error, "the broken variant should have been caught");
        assertTrue(error.getMessage().contains("a reader saw another state"), error.getMessage());
    }

    @Test
    void endPathsAChangeDoesNotKeepNameNodesThatAreNoLongerTheEnds()
    {
        assertNull(violation(CORRECT, List.of("k1", "k2", "k3", "k4"), List.of(insert("k5"), insert("k0"))));
        final AssertionError error = violation(ENDS_NOT_KEPT, List.of("k1", "k2", "k3", "k4"),
            List.of(insert("k5"), insert("k0")));
        assertNotNull(error, "the broken variant should have been caught");
        assertTrue(error.getMessage().contains("path"), error.getMessage());
    }

    private static AssertionError violation(final TreeModel.Variant variant, final List<String> initial,
        final List<TreeModel.Change> changes)
    {
        try
        {
            check(variant, initial, changes);
            return null;
        }
        catch (final AssertionError error)
        {
            return error;
        }
    }

}
