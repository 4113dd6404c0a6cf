package io.dkv.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Where a device can be reached: the GID and port of the verbs world, a few bytes that are small
 * enough to publish in a directory and read with one RDMA READ.
 *
 * <ul>
 * <li>{@code shm:<16 hex digits>}: a device id on this host (8 bytes).</li>
 * <li>{@code tcp:<ip>:<port>}: the NIC engine's listening socket (6 or 18 bytes).</li>
 * <li>{@code verbs:<38 hex digits>}: an RNIC port's GID (16 bytes), LID (2, big-endian) and active MTU (1, as
 * {@code enum ibv_mtu}): what a peer puts in an address vector to reach it, over InfiniBand or RoCE.</li>
 * </ul>
 */
public final class PortAddress
{
    public static final String SHM = "shm";
    public static final String TCP = "tcp";
    public static final String VERBS = "verbs";
    /** Bytes of a {@code verbs} address: GID, LID, MTU. */
    public static final int VERBS_LENGTH = 16 + 2 + 1;

    private final String provider;
    private final byte[] bytes;
    private final int hash;

    private PortAddress(final String provider, final byte[] bytes)
    {
        this.provider = provider;
        this.bytes = bytes;
        this.hash = provider.hashCode() * 31 + Arrays.hashCode(bytes);
    }

    public static PortAddress shm(final long deviceId)
    {
        return new PortAddress(SHM, ByteBuffer.allocate(8).putLong(deviceId).array());
    }

    public static PortAddress tcp(final InetSocketAddress address)
    {
        final byte[] ip = address.getAddress().getAddress();
        return new PortAddress(TCP,
            ByteBuffer.allocate(ip.length + 2).put(ip).putShort((short)address.getPort()).array());
    }

    /**
     * @param gid the port's GID, 16 bytes as the GID table holds them.
     * @param lid the port's LID (0 on RoCE).
     * @param mtu the port's active MTU, as {@code enum ibv_mtu} (1 = 256 B ... 5 = 4096 B).
     * @return the address of an RNIC port.
     */
    public static PortAddress verbs(final byte[] gid, final int lid, final int mtu)
    {
        if (gid.length != 16)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + gid.length);
        }
        if (lid < 0 || lid > 0xFFFF || mtu < 1 || mtu > 5)
        {
            throw new IllegalArgumentException("lid " + lid + " must be 0..65535 and mtu " + mtu + " 1..5");
        }
        return new PortAddress(VERBS,
            ByteBuffer.allocate(VERBS_LENGTH).put(gid).putShort((short)lid).put((byte)mtu).array());
    }

    /**
     * @param provider provider name.
     * @param bytes    the encoded address, as {@link #bytes()} returns it.
     * @return the address.
     */
    public static PortAddress of(final String provider, final byte[] bytes)
    {
        final PortAddress address = new PortAddress(provider, bytes.clone());
        address.validate();
        return address;
    }

    /**
     * Parse the form {@link #toString()} produces.
     *
     * @param text e.g. {@code "tcp:10.0.0.2:4791"}.
     * @return the address.
     */
    public static PortAddress parse(final String text)
    {
        final int colon = text.indexOf(':');
        if (colon < 0)
        {
            throw new IllegalArgumentException("port address '" + text +
                "' lacks a provider prefix (shm:, tcp: or verbs:)");
        }
        final String provider = text.substring(0, colon);
        final String rest = text.substring(colon + 1);
        switch (provider)
        {
            case SHM:
                try
                {
                    return shm(HexFormat.fromHexDigitsToLong(rest));
                }
                catch (final RuntimeException ex)
                {
                    throw new IllegalArgumentException("shm address '" + text + "' must be shm:<16 hex digits>", ex);
                }

            case TCP:
                final int portColon = rest.lastIndexOf(':');
                if (portColon < 0)
                {
                    throw new IllegalArgumentException("tcp address '" + text + "' must be tcp:<ip>:<port>");
                }
                String host = rest.substring(0, portColon);
                if (host.startsWith("[") && host.endsWith("]"))
                {
                    host = host.substring(1, host.length() - 1);
                }
                try
                {
                    final int port = Integer.parseInt(rest.substring(portColon + 1));
                    return tcp(new InetSocketAddress(InetAddress.getByName(host), port));
                }
                catch (final UnknownHostException | NumberFormatException ex)
                {
                    throw new IllegalArgumentException("tcp address '" + text + "' must be tcp:<ip>:<port>", ex);
                }

            case VERBS:
                try
                {
                    return of(VERBS, HexFormat.of().parseHex(rest));
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new IllegalArgumentException("verbs address '" + text + "' must be verbs:<" +
                        2 * VERBS_LENGTH + " hex digits>", ex);
                }

            default:
                throw new IllegalArgumentException("port address '" + text + "' has unknown provider '" + provider +
                    "'");
        }
    }

    public String provider()
    {
        return provider;
    }

    /** @return a copy of the encoded address. */
    public byte[] bytes()
    {
        return bytes.clone();
    }

    public int length()
    {
        return bytes.length;
    }

    /** @return the device id of a {@code shm} address. */
    public long shmDeviceId()
    {
        requireProvider(SHM);
        return ByteBuffer.wrap(bytes).getLong();
    }

    /** @return the socket address of a {@code tcp} address. */
    public InetSocketAddress tcpSocketAddress()
    {
        requireProvider(TCP);
        final byte[] ip = Arrays.copyOf(bytes, bytes.length - 2);
        final int port = ((bytes[bytes.length - 2] & 0xFF) << 8) | (bytes[bytes.length - 1] & 0xFF);
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("bad ip bytes in " + this, ex);
        }
    }

    /** @return the GID of a {@code verbs} address. */
    public byte[] verbsGid()
    {
        requireProvider(VERBS);
        return Arrays.copyOf(bytes, 16);
    }

    /** @return the LID of a {@code verbs} address. */
    public int verbsLid()
    {
        requireProvider(VERBS);
        return ((bytes[16] & 0xFF) << 8) | (bytes[17] & 0xFF);
    }

    /** @return the active MTU of a {@code verbs} address, as {@code enum ibv_mtu}. */
    public int verbsMtu()
    {
        requireProvider(VERBS);
        return bytes[18];
    }

    private void requireProvider(final String expected)
    {
        if (!provider.equals(expected))
        {
            throw new IllegalArgumentException("address " + this + " is not a " + expected + " address");
        }
    }

    private void validate()
    {
        switch (provider)
        {
            case SHM:
                if (bytes.length != 8)
                {
                    throw new IllegalArgumentException("shm address must be 8 bytes, got " + bytes.length);
                }
                break;

            case TCP:
                if (bytes.length != 6 && bytes.length != 18)
                {
                    throw new IllegalArgumentException("tcp address must be 6 or 18 bytes, got " + bytes.length);
                }
                break;

            case VERBS:
                if (bytes.length != VERBS_LENGTH || bytes[18] < 1 || bytes[18] > 5)
                {
                    throw new IllegalArgumentException("verbs address must be " + VERBS_LENGTH +
                        " bytes ending in an MTU of 1..5, got " + HexFormat.of().formatHex(bytes));
                }
                break;

            default:
                if (bytes.length == 0 || bytes.length > 32)
                {
                    throw new IllegalArgumentException("address of provider '" + provider + "' has " + bytes.length +
                        " bytes");
                }
        }
    }

    public boolean equals(final Object o)
    {
        return this == o ||
            (o instanceof PortAddress other && provider.equals(other.provider) && Arrays.equals(bytes, other.bytes));
    }

    public int hashCode()
    {
        return hash;
    }

    public String toString()
    {
        switch (provider)
        {
            case SHM:
                return SHM + ':' + HexFormat.of().toHexDigits(shmDeviceId());

            case TCP:
                final InetSocketAddress socketAddress = tcpSocketAddress();
                final String host = socketAddress.getAddress().getHostAddress();
                return TCP + ':' + (host.contains(":") ? '[' + host + ']' : host) + ':' + socketAddress.getPort();

            default:
                return provider + ':' + HexFormat.of().formatHex(bytes);
        }
    }
}
