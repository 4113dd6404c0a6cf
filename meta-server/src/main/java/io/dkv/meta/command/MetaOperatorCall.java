package io.dkv.meta.command;

import io.dkv.raas.Raas;
import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcClient;
import io.dkv.raas.meta.MetaRpcDescriptor;

/**
 * What {@code dkv meta evict} and {@code dkv meta withdraw} share: one operator request
 * ({@link MetaRpcDescriptor#FLAG_OPERATOR}, sealed with the operator key derived from the cluster
 * secret) to a MetaServer, from a driver of its own that registers nowhere.
 */
abstract class MetaOperatorCall extends MetaServerCall
{
    final String call(final Raas raas, final MetaRpcClient client)
    {
        body(client.beginOperator(type()));
        client.call();
        return done();
    }

    /** @return the request type. */
    abstract byte type();

    /** Write the request's body. */
    abstract void body(MetaMessageWriter writer);

    /** @return what to print once the MetaServer did it. */
    abstract String done();
}
