package io.dkv.raas.meta;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A node's token ({@link MetaDirectoryContext#nodeToken}) kept where the node keeps its durable state,
 * so that the node restarted after a crash takes its MetaServer record back at once instead of
 * waiting for the record's lease to lapse. Hex, readable by its owner only.
 */
public final class NodeTokenFile
{
    /** The file's name in a node's data directory. */
    public static final String NAME = "node-token";

    private NodeTokenFile()
    {
    }

    /**
     * @return the token kept in {@code <dataDir>/node-token}, drawn and kept first when there is none.
     * @throws IllegalArgumentException naming the file when it cannot be read or written, or holds no token.
     */
    public static byte[] readOrCreate(final Path dataDir)
    {
        final Path file = dataDir.resolve(NAME);
        try
        {
            if (Files.exists(file))
            {
                final byte[] token = HexFormat.of().parseHex(Files.readString(file, StandardCharsets.US_ASCII).strip());
                if (token.length != MetaRpcDescriptor.TOKEN_LENGTH)
                {
                    throw new IllegalArgumentException("node token file " + file + " holds " + token.length +
                        " bytes, not " + MetaRpcDescriptor.TOKEN_LENGTH);
                }
                return token;
            }
            final byte[] token = new byte[MetaRpcDescriptor.TOKEN_LENGTH];
            new SecureRandom().nextBytes(token);
            Files.createDirectories(dataDir);
            final Path partial = dataDir.resolve(NAME + ".partial");
            Files.deleteIfExists(partial);
            if (dataDir.getFileSystem().supportedFileAttributeViews().contains("posix"))
            {
                Files.createFile(partial,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(partial, HexFormat.of().formatHex(token) + System.lineSeparator(),
                StandardCharsets.US_ASCII);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
            return token;
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("node token file " + file + ": " + ex.getMessage(), ex);
        }
        catch (final IllegalArgumentException ex)
        {
            if (ex.getMessage() != null && ex.getMessage().startsWith("node token file"))
            {
                throw ex;
            }
            throw new IllegalArgumentException("node token file " + file + " does not hold hex digits", ex);
        }
    }
}
