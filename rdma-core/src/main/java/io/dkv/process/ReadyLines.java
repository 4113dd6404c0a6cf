package io.dkv.process;

import java.util.regex.Pattern;

/**
 * The lines the roles print once they serve, as what starts them ({@link RoleProcess#start}) waits for them, and the
 * groups that say what each serves.
 */
public final class ReadyLines
{
    /** A MetaServer: its endpoint (group 1), alone on its line. */
    public static final Pattern META = Pattern.compile("(?m)^(meta:\\S+)\\s*$");
    /** A memory node: its id (group 1) and the address its NIC engine serves at (group 2). */
    public static final Pattern MEMORY_NODE = Pattern.compile("dkv memory node (\\d+) serving .* at ([^;\\s]+);");
    /** A standalone driver: the node it serves (group 1) and that node's address (group 2). */
    public static final Pattern DRIVER = Pattern.compile("serving node (\\d+) at (\\S+);");
    /** A compute node: its id (group 1), and the host (group 2) and port (group 3) it serves RESP on. */
    public static final Pattern COMPUTE_NODE =
        Pattern.compile("dkv compute node (\\d+) serving RESP on (\\S+):(\\d+) ");

    private ReadyLines()
    {
    }
}
