/**
 * The Jepsen-style harness ({@code dkv check}): the command, a real cluster and client processes, and a run from its
 * first fault to the checkers' verdict; the workloads, the stores under test and the nemesis have packages beside it.
 */
package io.dkv.load.check.harness;
