/**
 * An Elle-style checker of list-append transaction histories: version orders inferred from the lists read,
 * dependency graphs between transactions, and the cycles and read anomalies that break serializability.
 */
package io.dkv.checker.elle;
