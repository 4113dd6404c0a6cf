package io.dkv.compute.command;

import java.util.Map;

/**
 * A command as the table knows it, with redis's arity convention: N means exactly N arguments (the name counted), -N
 * at least N.
 *
 * @param name        the name lower case; a subcommand's is {@code container|sub} as redis names it in errors.
 * @param arity       redis's arity.
 * @param noAuth      true when a connection may run it before AUTH (AUTH, HELLO, QUIT).
 * @param handler     the work.
 * @param subcommands a container's subcommands by lower-case name, or null.
 */
public record CommandSpec(String name, int arity, boolean noAuth, CommandHandler handler,
    Map<String, CommandSpec> subcommands)
{
    /** @return true when a request of {@code argc} arguments (the name counted) fits the arity. */
    public boolean arityFits(final int argc)
    {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }
}
