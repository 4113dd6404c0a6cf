/**
 * Redis's own tcl test suite run against a compute node in external mode: which of its tests pass, and why the others
 * fail, as a table (`./dkv bench redis-suite`).
 */
package io.dkv.load.bench.suite;
