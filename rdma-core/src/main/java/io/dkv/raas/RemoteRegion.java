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
            throw new IllegalArgumentException("region name of " + name.length() + " characters exceeds " + MAX_NAME_LENGTH);
        }
        if (length <= 0)
        {
            throw new IllegalArgumentException("region '" + name + "' has length " + length);
        }
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
        return String.format("region{'%s' on node %d, addr=0x%x, rkey=0x%x, length=%d}", name, nodeId, address, rkey, length);
    }
}
