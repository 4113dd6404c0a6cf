/**
 * The {@code verbs} provider: real RNICs through libibverbs, and their DC transport through mlx5dv, bound with
 * {@code java.lang.foreign}; every struct layout and constant it uses is checked against the installed C headers.
 */
package io.dkv.verbs.ibv;
