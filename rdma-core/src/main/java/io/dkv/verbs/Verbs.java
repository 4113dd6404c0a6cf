package io.dkv.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Opens devices by provider name.
 */
public final class Verbs
{
    private Verbs()
    {
    }

    /**
     * Open a device with the context's provider.
     *
     * @param context settings; {@link VerbsContext#conclude()} is applied.
     * @return the opened device.
     * @throws VerbsException if the provider is unknown or not available here, saying why.
     */
    public static Device open(final VerbsContext context)
    {
        context.conclude();
        final VerbsProvider provider = provider(context.provider());
        final String reason = provider.unavailableReason(context);
        if (reason != null)
        {
            throw new VerbsException("verbs provider '" + provider.name() + "' is not available: " + reason);
        }
        return provider.open(context);
    }

    /** Open a device with the configured provider and defaults. */
    public static Device open()
    {
        return open(new VerbsContext());
    }

    /**
     * @param name    a provider's name, or {@code auto}.
     * @param context what a device would be opened with.
     * @return {@code name}, or for {@code auto}: {@code verbs} where an RNIC is present and usable, else the
     * default ({@code shm}).
     */
    public static String resolve(final String name, final VerbsContext context)
    {
        if (!VerbsConfiguration.PROVIDER_AUTO.equals(name))
        {
            return name;
        }
        return provider(PortAddress.VERBS).unavailableReason(context) == null ? PortAddress.VERBS :
            VerbsConfiguration.PROVIDER_DEFAULT;
    }

    /**
     * @param name provider name.
     * @return the provider.
     * @throws VerbsException if none has that name.
     */
    public static VerbsProvider provider(final String name)
    {
        final List<String> names = new ArrayList<>();
        for (final VerbsProvider provider : ServiceLoader.load(VerbsProvider.class))
        {
            if (provider.name().equals(name))
            {
                return provider;
            }
            names.add(provider.name());
        }
        throw new VerbsException("no verbs provider named '" + name + "'; known: " + names);
    }

    /** @return every provider on the class path, available or not. */
    public static List<VerbsProvider> providers()
    {
        final List<VerbsProvider> providers = new ArrayList<>();
        ServiceLoader.load(VerbsProvider.class).forEach(providers::add);
        return providers;
    }
}
