/**
 * Consistency checking, Jepsen style: the harness that runs a real cluster under faults and records its histories;
 * the history model and the checkers that judge them are the checker module's ({@code io.dkv.checker}).
 */
package io.dkv.load.check;
