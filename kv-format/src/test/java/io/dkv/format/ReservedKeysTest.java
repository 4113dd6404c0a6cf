package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Named keys are reserved and never a segment's or a journal's: a flush of every key tells them apart by length.
 */
class ReservedKeysTest
{
    @Test
    void aNamedKeyIsReservedAndNamedWhileSegmentsAndJournalsAreNot()
    {
        final byte[] named = ReservedKeys.namedKey("functions");
        assertArrayEquals("\0dkv\0functions".getBytes(StandardCharsets.US_ASCII), named);
        assertTrue(ReservedKeys.isReserved(named));
        assertTrue(ReservedKeys.isNamed(named));
        assertFalse(ReservedKeys.isJournal(named));
        assertFalse(ReservedKeys.isNamed(ReservedKeys.segmentKey(-1, 7)));
        assertFalse(ReservedKeys.isNamed(ReservedKeys.journalKey(42)));
        assertFalse(ReservedKeys.isNamed("functions".getBytes(StandardCharsets.US_ASCII)), "a user's key");
    }

    @Test
    void aNameThatWouldMakeASegmentsLengthIsRefused()
    {
        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> ReservedKeys.namedKey("twelve-bytes"));
        assertTrue(refused.getMessage().contains("'twelve-bytes' is 12 bytes"), refused.getMessage());
        assertTrue(ReservedKeys.isNamed(ReservedKeys.namedKey("thirteen-byte")));
    }
}
