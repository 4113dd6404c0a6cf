/**
 * Hashes and sets on the store: a header at the collection's key and its elements in segments at reserved keys, split
 * and merged by linear hashing, each change one transaction (client/README.md, "Hashes and sets").
 */
package io.dkv.client.collection;
