/**
 * The {@code dkv} command line: the top-level command and its version. Each group of subcommands
 * lives in a package of its own below this one.
 */
package io.dkv.load;
