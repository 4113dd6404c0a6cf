/**
 * The bank checker: transfers between accounts and snapshots of them all, judged by the one invariant a serializable
 * store keeps for them, that no money is made or lost.
 */
package io.dkv.checker.bank;
