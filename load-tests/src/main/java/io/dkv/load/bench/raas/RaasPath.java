package io.dkv.load.bench.raas;

import io.dkv.raas.RaasContext;

import java.util.Locale;

/**
 * Which of the driver's shared queue pairs the client's requests to the server travel on, fixed
 * for a whole run so that every run measures the same thing: left to itself the driver moves a peer
 * to RC once it sees 10,000 requests in 100 ms, which some runs reach and others do not.
 */
public enum RaasPath
{
    /** The driver's shared DC initiators: RC promotion off. */
    DC,
    /**
     * The one RC queue pair the driver gives a hot peer, shared by all its logical connections: promoted on the first
     * request.
     */
    RC;

    /**
     * @return the context, set up to keep requests on this path.
     */
    RaasContext configure(final RaasContext context)
    {
        return context.rcPromoteRequests(this == DC ? 0 : 1);
    }

    /**
     * @return the same settings as system properties, for a standalone driver's process.
     */
    java.util.Map<String, String> properties()
    {
        return java.util.Map.of(io.dkv.raas.RaasConfiguration.RC_PROMOTE_REQUESTS_PROP_NAME, this == DC ? "0" : "1");
    }

    static String describe()
    {
        return "DC = the driver's shared DC initiators (RC promotion off); RC = the one RC queue pair the driver " +
            "gives a hot peer, shared by all its logical connections (promoted on the first request instead of after " +
            "10,000 in 100 ms)";
    }

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
