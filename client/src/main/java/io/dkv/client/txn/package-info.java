/**
 * Transactions over any keys (client/README.md, "Transactions"): the API a transaction's function sees, the commit
 * protocol of intents and a primary, and the rules by which every read and write of the client treats an intent.
 */
package io.dkv.client.txn;
