package io.dkv.checker.linear;

import java.util.BitSet;
import java.util.Random;

/**
 * A random walk over a {@link LinearizedSet} the way a search moves: mostly an operation a little above the lowest
 * not yet linearized, now and then any operation, each taken back when it is already in; and when nearly every
 * determinate operation is in, some of them taken back at once. {@link #expected} holds what the set should.
 */
final class SearchWalk
{
    final LinearizedSet set = new LinearizedSet();
    final BitSet expected = new BitSet();
    final Random random;
    private final int determinate;
    private final int indeterminate;
    private final int anyOneIn;
    private final int reach;
    private final int fullMargin;
    private final int dropOneIn;

    /**
     * @param anyOneIn   one step in this many takes any operation rather than one near the lowest missing.
     * @param reach      how far above the lowest missing operation a step may go.
     * @param fullMargin when fewer than this many determinate operations are missing, some are taken back.
     * @param dropOneIn  each operation in is taken back with one chance in this many.
     */
    SearchWalk(final long seed, final int determinate, final int indeterminate, final int anyOneIn, final int reach,
        final int fullMargin, final int dropOneIn)
    {
        this.random = new Random(seed);
        this.determinate = determinate;
        this.indeterminate = indeterminate;
        this.anyOneIn = anyOneIn;
        this.reach = reach;
        this.fullMargin = fullMargin;
        this.dropOneIn = dropOneIn;
        set.reset(determinate, indeterminate);
    }

    void step()
    {
        toggle(random.nextInt(anyOneIn) == 0 ? random.nextInt(determinate + indeterminate) :
            Math.min(determinate - 1, expected.nextClearBit(0) + random.nextInt(reach)));
        if (expected.cardinality() > determinate - fullMargin)
        {
            for (int op = expected.nextSetBit(0); op >= 0; op = expected.nextSetBit(op + 1))
            {
                if (random.nextInt(dropOneIn) == 0)
                {
                    toggle(op);
                }
            }
        }
    }

    private void toggle(final int op)
    {
        if (expected.get(op))
        {
            set.remove(op);
            expected.clear(op);
        }
        else
        {
            set.add(op);
            expected.set(op);
        }
    }
}
