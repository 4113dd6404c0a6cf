/**
 * {@code dkv bench}: benchmarks that report each figure beside a floor measured in the same run,
 * and what they share (the machine description, a measurement's figures).
 */
package io.dkv.load.bench;
