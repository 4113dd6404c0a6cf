package io.dkv.verbs;

/**
 * Memory region and queue pair access flags, with the values of {@code enum ibv_access_flags}.
 */
public final class Access
{
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;

    /** Every flag: what a region shared for one-sided access usually asks for. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    public static final int REMOTE_MASK = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private Access()
    {
    }

    /** @return the remote access a one-sided request with this opcode needs of the region it reaches. */
    public static int requiredFor(final Opcode opcode)
    {
        return opcode == Opcode.RDMA_READ ? REMOTE_READ : opcode.isAtomic() ? REMOTE_ATOMIC : REMOTE_WRITE;
    }

    public static boolean isRemote(final int access)
    {
        return (access & REMOTE_MASK) != 0;
    }

    /**
     * Human-readable list of flags, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}.
     *
     * @param access flags.
     * @return the flag names joined by '|', or "NONE".
     */
    public static String describe(final int access)
    {
        if (access == 0)
        {
            return "NONE";
        }
        final StringBuilder sb = new StringBuilder();
        append(sb, access, LOCAL_WRITE, "LOCAL_WRITE");
        append(sb, access, REMOTE_WRITE, "REMOTE_WRITE");
        append(sb, access, REMOTE_READ, "REMOTE_READ");
        append(sb, access, REMOTE_ATOMIC, "REMOTE_ATOMIC");
        final int unknown = access & ~ALL;
        if (unknown != 0)
        {
            append(sb, unknown, unknown, "0x" + Integer.toHexString(unknown));
        }
        return sb.toString();
    }

    private static void append(final StringBuilder sb, final int access, final int flag, final String name)
    {
        if ((access & flag) != 0)
        {
            if (!sb.isEmpty())
            {
                sb.append('|');
            }
            sb.append(name);
        }
    }
}
