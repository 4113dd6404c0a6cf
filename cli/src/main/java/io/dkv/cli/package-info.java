/**
 * The {@code dkv} command line: the top-level command that gathers every role's command, the load tools and the
 * CLI's own commands, and its version. The CLI's own commands live in a package of their own below this one.
 */
package io.dkv.cli;
