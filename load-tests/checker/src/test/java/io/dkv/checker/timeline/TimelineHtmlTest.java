package io.dkv.checker.timeline;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The timeline on its own (the harness's tests see it through {@code dkv check}'s result directory): one bar per
 * operation coloured by outcome, the failing ones red, faults as named bands, text escaped.
 */
class TimelineHtmlTest
{
    private static final long MS = 1_000_000L;

    @Test
    void everyOperationIsABarColouredByItsOutcomeAndTheFailingOnesRed()
    {
        final History history = History.of(List.of(
            new Op(0, OpType.INVOKE, 0, Op.WRITE, "x", 1L, 0, null),
            new Op(0, OpType.INVOKE, 1, Op.CAS, "x", List.of(5L, 6L), 1 * MS, null),
            new Op(0, OpType.OK, 0, Op.WRITE, "x", 1L, 2 * MS, null),
            new Op(0, OpType.FAIL, 1, Op.CAS, "x", List.of(5L, 6L), 3 * MS, "did not hold 5"),
            new Op(0, OpType.INVOKE, 2, Op.WRITE, "x", 2L, 4 * MS, null),
            new Op(0, OpType.INFO, 2, Op.WRITE, "x", 2L, 9 * MS, "timed out"),
            new Op(0, OpType.INVOKE, 0, Op.READ, "x", null, 10 * MS, null),
            new Op(0, OpType.OK, 0, Op.READ, "x", 7L, 11 * MS, null)));
        final long readInvocation = 6;

        final String html = TimelineHtml.render("x <& y", history,
            new Judgement("linearizability", "INVALID", "read 7 <never written>", Set.of(readInvocation)), List.of());

        assertEquals(1, count(html, "<rect class=\"ok\""), "the write");
        assertEquals(1, count(html, "<rect class=\"fail\""), "the cas");
        assertEquals(1, count(html, "<rect class=\"info\""), "the write of unknown outcome");
        assertEquals(1, count(html, "<rect class=\"bad\""), "the read that witnesses the violation");
        assertTrue(html.contains("<title>x &lt;&amp; y</title>"), html);
        assertTrue(html.contains("read 7 &lt;never written&gt;"), html);
        assertFalse(html.contains("class=\"fault\""), "no fault, no band");
    }

    @Test
    void faultsAreNamedBands()
    {
        final History history = History.of(List.of(
            new Op(0, OpType.INVOKE, 0, Op.READ, "x", null, 0, null),
            new Op(0, OpType.OK, 0, Op.READ, "x", null, 2_000 * MS, null)));

        final Judgement valid = new Judgement("linearizability", "VALID", "", Set.of());

        final String html = TimelineHtml.render("faults", history, valid, List.of(
            new Fault("kill", "memory-node-1", 100 * MS, 900 * MS, "restarted"),
            new Fault("pause", "meta", 1_000 * MS, 1_500 * MS, "")));

        assertEquals(2, count(html, "<rect class=\"fault\""));
        assertTrue(html.contains("<title>kill memory-node-1 restarted</title>"), html);
        assertTrue(html.contains(">pause meta</text>"), html);
        assertTrue(html.contains("2 faults"), html);
    }

    @Test
    void phasesAreGreenBandsNamedAtTheFoot()
    {
        final History history = History.of(List.of(
            new Op(0, OpType.INVOKE, 0, Op.READ, "x", null, 0, null),
            new Op(0, OpType.OK, 0, Op.READ, "x", null, 9_000 * MS, null)));

        final String html = TimelineHtml.render("phases", history, new Judgement("linearizability", "VALID", "",
            Set.of()), List.of(new Fault("kill", "driver", 100 * MS, 900 * MS, "")), List.of(
            new Phase("heal", 6_000 * MS, 7_000 * MS, "every role back"),
            new Phase("final reads", 7_000 * MS, 9_500 * MS, "recovered")));

        assertEquals(2, count(html, "<rect class=\"phase\""));
        assertEquals(1, count(html, "<rect class=\"fault\""));
        assertTrue(html.contains("<title>final reads recovered</title>") && html.contains(">heal</text>"), html);
        assertTrue(html.contains("1 faults, 2 phases"), html);
    }

    private static int count(final String text, final String part)
    {
        return text.split(part, -1).length - 1;
    }
}
