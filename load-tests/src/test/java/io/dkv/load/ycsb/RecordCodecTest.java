package io.dkv.load.ycsb;

import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordCodecTest
{
    private static Map<String, byte[]> record()
    {
        final Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("field0", "first".getBytes(StandardCharsets.UTF_8));
        fields.put("empty", new byte[0]);
        fields.put("größe", new byte[]{0, -1, 127, -128});
        return fields;
    }

    @Test
    void decodesWhatItEncodedInOrder()
    {
        final byte[] encoded = RecordCodec.encode(record());
        final Map<String, byte[]> decoded = RecordCodec.decode(encoded);

        assertEquals(List.of("field0", "empty", "größe"), List.copyOf(decoded.keySet()));
        for (final Map.Entry<String, byte[]> field : record().entrySet())
        {
            assertArrayEquals(field.getValue(), decoded.get(field.getKey()), field.getKey());
        }
        // count, then per field: name length, name (UTF-8: "größe" takes 7 bytes), value length, value
        assertEquals(2 + (2 + 6 + 4 + 5) + (2 + 5 + 4) + (2 + 7 + 4 + 4), encoded.length);
    }

    @Test
    void decodesOnlyTheFieldsAskedFor()
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        RecordCodec.decodeInto(RecordCodec.encode(record()), Set.of("größe", "absent"), result);

        assertEquals(Set.of("größe"), result.keySet());
        assertArrayEquals(new byte[]{0, -1, 127, -128}, result.get("größe").toArray());
    }

    @Test
    void refusesATruncatedRecordSayingWhereItEnds()
    {
        final byte[] encoded = RecordCodec.encode(record());
        final byte[] truncated = Arrays.copyOf(encoded, encoded.length - 1);

        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(truncated));
        assertTrue(ex.getMessage().contains("record of " + truncated.length + " bytes ends before the value of field 2"),
            ex.getMessage());
    }
}
