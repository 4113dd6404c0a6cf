package io.dkv.compute.resp;

/**
 * A request with at least one argument longer than the decoder holds: that argument's slot in {@link #args} is empty
 * and {@link #staged} holds, at the same index, what the {@link LongBulkSink} made of it (null elsewhere). Whoever
 * runs it uses or abandons each staged argument.
 *
 * @param args   the request, a long argument's slot an empty array.
 * @param staged per argument, what stands for a long one; null for the others.
 */
public record LongRequest(byte[][] args, Object[] staged)
{
}
