package io.dkv.raas.meta;

import org.agrona.concurrent.EpochClock;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Seals and checks MetaServer RPC frames ({@link MetaRpcDescriptor}): a timestamp in the header and
 * an HMAC-SHA256 over the header and body, keyed by the cluster secret, or by the operator key
 * derived from it for requests marked {@link MetaRpcDescriptor#FLAG_OPERATOR}. The secret itself
 * never travels.
 *
 * <p>Without a secret ({@code null}: in-process use, see {@link MetaDirectoryContext#noClusterSecret()})
 * frames are sealed with a fixed, public key: the format stays the same, and a party with a secret
 * refuses them as it refuses any other wrong secret.
 *
 * <p>One instance per thread: the Mac instances and scratch arrays are reused, so sealing and
 * checking a frame allocate nothing but two small views of it.
 */
public final class MetaFrameAuthenticator
{
    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] NO_SECRET_KEY = sha256("dkv: no cluster secret, frames are not authenticated");
    private static final byte[] OPERATOR_LABEL = "dkv operator key v1".getBytes(StandardCharsets.US_ASCII);
    private static final ValueLayout.OfLong LONG = MetaTableDescriptor.LONG;
    private static final String BAD_MAC = "bad MAC: the cluster secret differs";
    private static final String BAD_OPERATOR_MAC = "bad MAC for an operator request: the cluster secret differs";

    private final Mac memberMac;
    private final Mac operatorMac;
    private final EpochClock clock;
    private final long windowMs;
    private final byte[] computed = new byte[MAC_LENGTH];
    private final byte[] received = new byte[MAC_LENGTH];

    /**
     * @param secret   the cluster secret, or null for none.
     * @param clock    the clock timestamps are written from and checked against.
     * @param windowMs how far a frame's timestamp may be from the clock.
     */
    public MetaFrameAuthenticator(final byte[] secret, final EpochClock clock, final long windowMs)
    {
        final byte[] key = secret != null ? secret : NO_SECRET_KEY;
        this.memberMac = mac(key);
        this.operatorMac = mac(operatorKey(key));
        this.clock = clock;
        this.windowMs = windowMs;
    }

    /** @return the key operator requests are sealed with: HMAC of a fixed label under the secret. */
    static byte[] operatorKey(final byte[] secret)
    {
        final Mac mac = mac(secret);
        return mac.doFinal(OPERATOR_LABEL);
    }

    /**
     * Write the timestamp and append the mac.
     *
     * @param frame  a frame whose header and body are written, with {@link MetaRpcDescriptor#MAC_LENGTH} bytes to
     * spare.
     * @param length its length so far.
     * @return its length with the mac.
     */
    public int seal(final MemorySegment frame, final int length)
    {
        frame.set(LONG, TIMESTAMP_OFFSET, clock.time());
        final Mac mac = macFor(frame);
        mac.update(frame.asSlice(0, length).asByteBuffer());
        try
        {
            mac.doFinal(computed, 0);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC of a " + length + "-byte frame", ex);
        }
        MemorySegment.copy(computed, 0, frame, ValueLayout.JAVA_BYTE, length, MAC_LENGTH);
        return length + MAC_LENGTH;
    }

    /**
     * Check a frame's mac and timestamp.
     *
     * @param frame  the frame, at offset 0.
     * @param length its length including the mac; at least {@link MetaRpcDescriptor#HEADER_LENGTH} + {@link
     * MetaRpcDescriptor#MAC_LENGTH}.
     * @return null when the frame is authentic and fresh, else why not.
     */
    public String verify(final MemorySegment frame, final int length)
    {
        final int signed = length - MAC_LENGTH;
        final Mac mac = macFor(frame);
        mac.update(frame.asSlice(0, signed).asByteBuffer());
        try
        {
            mac.doFinal(computed, 0);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HMAC of a " + length + "-byte frame", ex);
        }
        MemorySegment.copy(frame, ValueLayout.JAVA_BYTE, signed, received, 0, MAC_LENGTH);
        if (!MessageDigest.isEqual(computed, received))
        {
            return mac == operatorMac ? BAD_OPERATOR_MAC : BAD_MAC;
        }
        final long skewMs = frame.get(LONG, TIMESTAMP_OFFSET) - clock.time();
        if (skewMs > windowMs || skewMs < -windowMs)
        {
            return "timestamp " + Math.abs(skewMs) / 1000 + " s " + (skewMs < 0 ? "old" : "ahead") + ", outside the " +
                windowMs / 1000 + " s window (a replayed frame, or clocks that differ)";
        }
        return null;
    }

    /**
     * @param reason what {@link #verify} said of a frame.
     * @return true when its mac does not match: the frame was sealed with another secret than this party's (or
     * forged), as opposed to a stale or replayed frame of the same secret.
     */
    public static boolean isBadMac(final String reason)
    {
        return BAD_MAC.equals(reason) || BAD_OPERATOR_MAC.equals(reason);
    }

    private Mac macFor(final MemorySegment frame)
    {
        final byte type = frame.get(ValueLayout.JAVA_BYTE, TYPE_OFFSET);
        final short flags =
            frame.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), FLAGS_OFFSET);
        return type != TYPE_REPLY && (flags & FLAG_OPERATOR) != 0 ? operatorMac : memberMac;
    }

    private static Mac mac(final byte[] key)
    {
        try
        {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(ALGORITHM + " is not available", ex);
        }
    }

    private static byte[] sha256(final String text)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("SHA-256 is not available", ex);
        }
    }
}
