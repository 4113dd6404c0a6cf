/**
 * {@code dkv bench}: benchmarks that report each figure beside a floor measured in the same run,
 * and what they share: the machine description, a measurement's figures, the providers, random
 * offsets, tables and number formats.
 */
package io.dkv.load.bench;
