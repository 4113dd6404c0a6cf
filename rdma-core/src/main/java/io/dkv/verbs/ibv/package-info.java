/**
 * The {@code verbs} provider's binding of libibverbs through {@code java.lang.foreign}, for real RNICs: the
 * structs' layouts and the constants so far, each checked against the installed C header by a test.
 */
package io.dkv.verbs.ibv;
