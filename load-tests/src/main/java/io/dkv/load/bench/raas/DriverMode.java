package io.dkv.load.bench.raas;

import java.util.Locale;

/**
 * Where the driver a RaaS figure went through runs.
 */
enum DriverMode
{
    /** In the application's JVM: calls go straight to it. */
    EMBEDDED,
    /** In a process of its own ({@code dkv driver}): calls go through its command-and-control file. */
    STANDALONE;

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
