/**
 * Strings longer than one block: the pieces that hold their bytes at reserved keys, written before a transaction
 * publishes them and read one after another (client/README.md, "Strings in pieces").
 */
package io.dkv.client.pieces;
