package io.dkv.compute.autoscale;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scaling rule is Kubernetes HPA's: ceil(nodes x mean/target) outside a tolerance, nodes without a figure damping
 * any change, stabilization windows up and down, at most double (or four more) per step, within MIN..MAX.
 */
class ScalingPolicyTest
{
    private static final double TARGET = 20_000;

    private static ScalingPolicy policy(final int min, final int max, final long upWindowMs, final long downWindowMs)
    {
        return new ScalingPolicy(min, max, TARGET, 0.1, upWindowMs, downWindowMs);
    }

    @Test
    void withinTheToleranceNothingChanges()
    {
        final ScalingPolicy policy = policy(1, 8, 0, 0);
        assertEquals(2, policy.recommend(0, 2, new double[]{21_000, 22_000}, 2).desired());
        assertEquals(2, policy.recommend(1, 2, new double[]{18_500, 19_000}, 2).desired());
    }

    @Test
    void outsideItAsksForTheRatioTimesTheNodesRoundedUp()
    {
        final ScalingPolicy policy = policy(1, 8, 0, 0);
        final ScalingPolicy.Decision decision = policy.recommend(0, 2, new double[]{30_000, 31_000}, 2);
        assertEquals(1.525, decision.ratio(), 1e-9);
        assertEquals(4, decision.desired(), "ceil(2 x 1.525) = 4");
        assertEquals(1, policy(1, 8, 0, 0).recommend(0, 3, new double[]{1_000, 2_000, 3_000}, 3).desired());
        assertEquals(2, policy(1, 8, 0, 0).recommend(0, 3, new double[]{12_000, 12_000, 12_000}, 3).desired(),
            "ceil(3 x 0.6) = 2");
    }

    @Test
    void neverOutsideMinAndMax()
    {
        assertEquals(3, policy(1, 3, 0, 0).recommend(0, 2, new double[]{60_000, 60_000}, 2).desired());
        assertEquals(2, policy(2, 8, 0, 0).recommend(0, 3, new double[]{0, 0, 0}, 3).desired());
        assertEquals(2, policy(2, 8, 0, 0).recommend(0, 1, new double[]{TARGET}, 1).desired(), "raised to the minimum");
    }

    @Test
    void atMostDoubleOrFourMoreInOneStep()
    {
        assertEquals(5, policy(1, 64, 0, 0).recommend(0, 1, new double[]{10 * TARGET}, 1).desired(), "1 + 4");
        assertEquals(20, policy(1, 64, 0, 0).recommend(0, 10, filled(10, 5 * TARGET), 10).desired(), "2 x 10");
    }

    @Test
    void aScaleDownWaitsForTheHighestRecommendationOfItsWindowToPass()
    {
        final ScalingPolicy policy = policy(1, 8, 0, 300_000);
        assertEquals(4, policy.recommend(0, 2, new double[]{40_000, 40_000}, 2).desired());
        // the burst passes at once: the recommendation of a moment ago still holds the nodes
        assertEquals(4, policy.recommend(15_000, 4, filled(4, 1_000), 4).desired());
        assertEquals(4, policy.recommend(299_999, 4, filled(4, 1_000), 4).desired());
        final ScalingPolicy.Decision after = policy.recommend(300_001, 4, filled(4, 1_000), 4);
        assertEquals(1, after.raw());
        assertEquals(1, after.desired(), "the high recommendation left the window");
    }

    @Test
    void aScaleUpWaitsForTheLowestRecommendationOfItsWindowToPass()
    {
        final ScalingPolicy policy = policy(1, 8, 60_000, 0);
        assertEquals(1, policy.recommend(0, 1, new double[]{TARGET}, 1).desired());
        assertEquals(1, policy.recommend(15_000, 1, new double[]{3 * TARGET}, 1).desired());
        assertEquals(1, policy.recommend(59_999, 1, new double[]{3 * TARGET}, 1).desired());
        assertEquals(3, policy.recommend(60_001, 1, new double[]{3 * TARGET}, 1).desired());
    }

    @Test
    void nodesWithoutAFigureCanOnlyDampAChange()
    {
        // one node at 1.5x, one starting: counted idle, the mean is 0.75x, the opposite way, so nothing changes
        final ScalingPolicy.Decision damped = policy(1, 8, 0, 0).recommend(0, 2, new double[]{1.5 * TARGET}, 1);
        assertEquals(2, damped.desired());
        assertEquals(1, damped.missing());
        // one node at 4x, one starting: 2x over both, so 4 nodes
        assertEquals(4, policy(1, 8, 0, 0).recommend(0, 2, new double[]{4 * TARGET}, 1).desired());
        // one node idle, two not answering: counted at target, the mean is 2/3x, so ceil(3 x 2/3) = 2
        assertEquals(2, policy(1, 8, 0, 0).recommend(0, 3, new double[]{0}, 1).desired());
        // none answering: nothing known, nothing done
        assertEquals(3, policy(1, 8, 0, 0).recommend(0, 3, new double[0], 0).desired());
    }

    @Test
    void badSettingsAreRefusedNamingTheValue()
    {
        assertMessage("0 and 4", () -> new ScalingPolicy(0, 4, TARGET, 0.1, 0, 0));
        assertMessage("3 and 2", () -> new ScalingPolicy(3, 2, TARGET, 0.1, 0, 0));
        assertMessage("target -1.0", () -> new ScalingPolicy(1, 2, -1, 0.1, 0, 0));
        assertMessage("tolerance 1.5", () -> new ScalingPolicy(1, 2, TARGET, 1.5, 0, 0));
        assertMessage("-5 ms", () -> new ScalingPolicy(1, 2, TARGET, 0.1, -5, 0));
    }

    private static void assertMessage(final String part, final org.junit.jupiter.api.function.Executable executable)
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(ex.getMessage().contains(part), ex.getMessage());
    }

    private static double[] filled(final int count, final double value)
    {
        final double[] figures = new double[count];
        java.util.Arrays.fill(figures, value);
        return figures;
    }
}
