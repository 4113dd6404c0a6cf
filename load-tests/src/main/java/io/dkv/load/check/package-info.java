/**
 * Consistency checking, Jepsen style: recorded histories of operations, the checkers that judge
 * them, and the harness that runs a real cluster under faults to record them.
 */
package io.dkv.load.check;
