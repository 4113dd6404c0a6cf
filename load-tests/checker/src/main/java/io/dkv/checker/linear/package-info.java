/**
 * Linearizability of a map of registers (read, write, compare-and-set): each key checked alone by a
 * Wing and Gong search with Lowe's cache, under a time budget; and a generator of register histories.
 */
package io.dkv.checker.linear;
