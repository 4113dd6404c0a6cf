package io.dkv.verbs;

/**
 * A verbs provider, found with {@link java.util.ServiceLoader}.
 */
public interface VerbsProvider
{
    /** @return the name users select it by. */
    String name();

    /**
     * @param context what a device would be opened with.
     * @return null when the provider can open such a device here, else why it cannot.
     */
    String unavailableReason(VerbsContext context);

    Device open(VerbsContext context);
}
