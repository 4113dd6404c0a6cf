/**
 * Where every role's clocks come from: the system's, or, in a test, clocks that a harness shifts and skews through a
 * small shared file (the clock faults of {@code ./dkv check}); and {@link CommonContext}, every Context's base.
 */
package io.dkv.clock;
