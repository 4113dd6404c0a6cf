package io.dkv.compute.command;

import io.netty.buffer.ByteBuf;

/**
 * One command's work, called once its name, arity and the connection's authentication were checked.
 */
@FunctionalInterface
public interface CommandHandler
{
    /**
     * @param session the connection's state.
     * @param args    the request, the command's name first.
     * @param out     where the reply goes.
     */
    void execute(Session session, byte[][] args, ByteBuf out);
}
