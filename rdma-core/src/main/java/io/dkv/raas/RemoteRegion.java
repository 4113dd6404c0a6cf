package io.dkv.raas;

/**
 * A region of a node's memory that peers may reach with one-sided operations: LITE's named
 * region. Requests through RaaS are checked against it before they reach a shared queue pair.
 *
 * @param name          its name in the directory ("" for an anonymous region).
 * @param nodeId        the node that holds it.
 * @param nodeEpoch     incarnation of that node when the region was registered.
 * @param address       remote virtual address of its first byte.
 * @param rkey          remote key.
 * @param length        bytes.
 * @param access        {@link io.dkv.verbs.Access} flags peers were granted.
 * @param layoutVersion version of what the region holds, for its users to agree on.
 */
public record RemoteRegion(
    String name, long nodeId, long nodeEpoch, long address, int rkey, long length, int access, int layoutVersion)
{
    public static final int MAX_NAME_LENGTH = 128;

    public RemoteRegion
    {
        if (name.length() > MAX_NAME_LENGTH)
        {
            throw new IllegalArgumentException("region name of " + name.length() + " characters exceeds " +
                MAX_NAME_LENGTH);
        }
        if (length <= 0)
        {
            throw new IllegalArgumentException("region '" + name + "' has length " + length);
        }
    }

    /**
     * Describe registered memory for peers, refusing to hand its rkey out with rights it was not
     * registered for (a peer handed more would only meet the NIC's refusal, as hardware refuses).
     *
     * @param memory the registered memory the region names.
     * @param access the remote rights to hand out: at most those {@code memory} was registered with.
     * @throws IllegalArgumentException naming the rights, when {@code access} exceeds the registration.
     */
    public static RemoteRegion of(
        final io.dkv.verbs.MemoryRegion memory,
        final String name,
        final long nodeId,
        final long nodeEpoch,
        final int access,
        final int layoutVersion)
    {
        final int beyond = access & ~(memory.access() & io.dkv.verbs.Access.REMOTE_MASK);
        if (beyond != 0 || access == 0)
        {
            throw new IllegalArgumentException("region '" + name + "' is registered for " +
                io.dkv.verbs.Access.describe(memory.access()) + ": its rkey cannot be handed out with " +
                io.dkv.verbs.Access.describe(access));
        }
        return new RemoteRegion(name, nodeId, nodeEpoch, memory.address(), memory.rkey(), memory.length(), access,
            layoutVersion);
    }

    /** @return this region as users of another layout version of its content know it. */
    public RemoteRegion withLayoutVersion(final int version)
    {
        return new RemoteRegion(name, nodeId, nodeEpoch, address, rkey, length, access, version);
    }

    /**
     * @return true when [offset, offset + bytes) lies inside the region.
     */
    public boolean contains(final long offset, final long bytes)
    {
        return offset >= 0 && bytes >= 0 && offset <= length - bytes;
    }

    public String toString()
    {
        return String.format("region{'%s' on node %d, addr=0x%x, rkey=0x%x, length=%d}", name, nodeId, address, rkey,
            length);
    }
}
