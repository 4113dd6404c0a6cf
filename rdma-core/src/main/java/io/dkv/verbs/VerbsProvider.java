package io.dkv.verbs;

/**
 * A verbs provider, found with {@link java.util.ServiceLoader}.
 */
public interface VerbsProvider
{
    /** @return the name users select it by. */
    String name();

    /** @return null when the provider can open devices here, else why it cannot. */
    String unavailableReason();

    Device open(VerbsContext context);
}
