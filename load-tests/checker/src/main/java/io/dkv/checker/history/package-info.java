/**
 * The history model: each operation an invocation and a completion (ok, fail, or info when the
 * outcome is unknown) by a process, with function, key, value and nanosecond times; JSON lines.
 */
package io.dkv.checker.history;
