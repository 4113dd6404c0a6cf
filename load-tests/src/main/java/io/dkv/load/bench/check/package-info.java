/**
 * {@code dkv bench check}: the consistency checkers on large generated histories, beside the time
 * to read those histories.
 */
package io.dkv.load.bench.check;
