/**
 * The Jepsen-style harness ({@code dkv check}): a real cluster as processes, client processes
 * running a workload, nemeses that kill, pause and partition, and the verdict of the checkers.
 */
package io.dkv.load.check.harness;
