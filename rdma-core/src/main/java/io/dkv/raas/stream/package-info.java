/**
 * Byte streams over RaaS (UNH EXS): each transfer goes zero-copy into a buffer the receiver advertised
 * (direct) or through the receiver's stream buffer (indirect), chosen per transfer by sequence and phase numbers.
 */
package io.dkv.raas.stream;
