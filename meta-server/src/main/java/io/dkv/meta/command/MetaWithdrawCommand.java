package io.dkv.meta.command;

import io.dkv.raas.meta.MetaMessageWriter;
import io.dkv.raas.meta.MetaRpcDescriptor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dkv meta withdraw --region NAME}: remove a region descriptor as an operator, whatever node
 * published it.
 */
@Command(name = "withdraw", mixinStandardHelpOptions = true,
    description = "Remove a named region from the MetaServer as an operator (authenticated with the cluster secret).")
public final class MetaWithdrawCommand extends MetaOperatorCall
{
    @Option(names = "--region", required = true, description = "The region's name.")
    String region;

    byte type()
    {
        return MetaRpcDescriptor.TYPE_WITHDRAW_REGION;
    }

    void body(final MetaMessageWriter writer)
    {
        writer.putName(region).putToken(null);
    }

    String done()
    {
        return "withdrew region '" + region + "'";
    }
}
