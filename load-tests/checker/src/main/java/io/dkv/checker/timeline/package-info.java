/**
 * A history drawn as a self-contained HTML page: each operation a bar from invocation to completion, coloured by
 * outcome, the witnesses of a violation red, injected faults as shaded bands.
 */
package io.dkv.checker.timeline;
