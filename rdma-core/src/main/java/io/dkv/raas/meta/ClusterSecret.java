package io.dkv.raas.meta;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;

/**
 * The cluster secret file: what every MetaServer RPC is authenticated with ({@link MetaFrameAuthenticator}).
 * The file holds at least {@link #MIN_BYTES} random bytes as hex digits (whitespace around them is
 * ignored) and, like an ssh private key, must not be open to group or others. Its bytes are never
 * printed: errors name the file and what is wrong with it, not what it holds.
 */
public final class ClusterSecret
{
    /** Fewest secret bytes a file may hold (64 hex digits). */
    public static final int MIN_BYTES = 32;
    /** Bytes {@link #generate} draws. */
    public static final int GENERATED_BYTES = 32;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = Set.of(
        PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private ClusterSecret()
    {
    }

    /**
     * @return the secret the file holds.
     * @throws IllegalArgumentException naming the file and what is wrong: missing, unreadable, open
     *                                  to group or others, not hex, or too short.
     */
    public static byte[] read(final Path file)
    {
        final String text;
        try
        {
            requireOwnerOnly(file);
            text = Files.readString(file, StandardCharsets.US_ASCII).strip();
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalArgumentException("cluster secret file " + file + " does not exist");
        }
        catch (final AccessDeniedException ex)
        {
            throw new IllegalArgumentException("cluster secret file " + file + " cannot be read: permission denied");
        }
        catch (final IOException | UncheckedIOException ex)
        {
            throw new IllegalArgumentException("cluster secret file " + file + " cannot be read: " + ex.getMessage());
        }
        for (int i = 0; i < text.length(); i++)
        {
            if (Character.digit(text.charAt(i), 16) < 0)
            {
                // where, never what: the file's content is a secret
                throw new IllegalArgumentException("cluster secret file " + file + " does not hold hex digits " +
                    "only: character " + (i + 1) + " of " + text.length() + " is not one; it needs an even number " +
                    "of hex digits, at least " + MIN_BYTES * 2);
            }
        }
        if ((text.length() & 1) != 0)
        {
            throw new IllegalArgumentException("cluster secret file " + file + " holds an odd number of hex digits (" +
                text.length() + "): two make a byte, so one is missing or one too many; it needs at least " +
                MIN_BYTES * 2);
        }
        final byte[] secret = HexFormat.of().parseHex(text);
        if (secret.length < MIN_BYTES)
        {
            Arrays.fill(secret, (byte)0);
            throw new IllegalArgumentException("cluster secret file " + file + " holds " + secret.length +
                " bytes, a cluster secret needs at least " + MIN_BYTES + " (" + MIN_BYTES * 2 + " hex digits)");
        }
        return secret;
    }

    /**
     * Write a new random secret to a file that does not exist yet, readable by its owner only from
     * the moment it exists.
     *
     * @return the secret written.
     * @throws IllegalArgumentException when the file exists already or cannot be written.
     */
    public static byte[] generate(final Path file)
    {
        final byte[] secret = new byte[GENERATED_BYTES];
        new SecureRandom().nextBytes(secret);
        try
        {
            if (file.getParent() != null)
            {
                Files.createDirectories(file.getParent());
            }
            if (isPosix(file.toAbsolutePath().getParent()))
            {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                // the umask may have taken bits away, never added any; set exactly what is meant
                Files.setPosixFilePermissions(file, OWNER_ONLY);
            }
            else
            {
                Files.createFile(file);
            }
            Files.writeString(file, HexFormat.of().formatHex(secret) + System.lineSeparator(),
                StandardCharsets.US_ASCII);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new IllegalArgumentException("cluster secret file " + file + " exists already: it is not replaced");
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot write cluster secret file " + file + ": " + ex.getMessage());
        }
        return secret;
    }

    /**
     * @return a copy of a secret given in code, once its length is checked.
     * @throws IllegalArgumentException naming the length, when it is shorter than {@link #MIN_BYTES}.
     */
    public static byte[] checked(final byte[] secret)
    {
        if (secret.length < MIN_BYTES)
        {
            throw new IllegalArgumentException("a cluster secret of " + secret.length + " bytes, fewer than " +
                MIN_BYTES);
        }
        return secret.clone();
    }

    /**
     * The secret a context ends with: as given in code, else read from its file, else none when the
     * context chose none.
     *
     * @param who what needs it, for the error that says how to give it ("a MetaServer").
     * @return the secret, or null for none.
     */
    public static byte[] resolve(final byte[] given, final Path file, final boolean none, final String who)
    {
        if (given != null || none)
        {
            return given;
        }
        if (file == null)
        {
            throw new IllegalArgumentException(who + " needs the cluster secret: set clusterSecretFile (or -D" +
                MetaDirectoryConfiguration.CLUSTER_SECRET_FILE_PROP_NAME +
                "), or noClusterSecret() for in-process use");
        }
        return read(file);
    }

    /** @return the file's secret, generated first when the file does not exist. */
    public static byte[] readOrGenerate(final Path file)
    {
        return Files.exists(file) ? read(file) : generate(file);
    }

    private static void requireOwnerOnly(final Path file) throws IOException
    {
        if (!isPosix(file))
        {
            return;
        }
        final Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        for (final PosixFilePermission permission : permissions)
        {
            if (GROUP_OR_OTHERS.contains(permission))
            {
                throw new IllegalArgumentException("cluster secret file " + file + " is open to group or others (" +
                    PosixFilePermissions.toString(permissions) + "): the secret must be readable by its owner only; " +
                    "run chmod 600 " + file);
            }
        }
    }

    private static boolean isPosix(final Path file)
    {
        return file != null && file.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
