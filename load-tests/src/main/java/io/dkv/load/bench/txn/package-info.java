/**
 * {@code dkv bench txn}: what a transaction costs against the single-key operations it is made of.
 */
package io.dkv.load.bench.txn;
