/**
 * {@code dkv driver}, the host's standalone RaaS driver, with a main of its own; and what the command lines of every
 * dkv role share: the cluster secret option and the rules they parse and fail by ({@link DkvCommandLine}).
 */
package io.dkv.raas.command;
