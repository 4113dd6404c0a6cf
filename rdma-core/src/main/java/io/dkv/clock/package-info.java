/**
 * Where every role's clocks come from: the system's, or, in a test, clocks that a harness shifts and skews through a
 * small shared file while the role runs (the clock faults of {@code ./dkv check}).
 */
package io.dkv.clock;
