/**
 * The nemesis of {@code dkv check}: a class per fault kind, listed by name in {@code FaultKinds}, and the schedule that
 * draws among the kinds asked for, lets each strike and heal, and heals whatever is left once the run's time is up.
 */
package io.dkv.load.check.nemesis;
