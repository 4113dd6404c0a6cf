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

        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(truncated));
        assertTrue(ex.getMessage()
            .contains("record of " + truncated.length + " bytes ends before the value of field 2"),
            ex.getMessage());
    }

    @Test
    void replacesChangedFieldsInPlaceKeepingTheOthersAndTheirOrder()
    {
        final Map<String, byte[]> changes =
            Map.of("empty", "now set".getBytes(StandardCharsets.UTF_8), "field0", new byte[0]);

        final byte[] changed = RecordCodec.withChanges(RecordCodec.encode(record()), changes, new FieldNames());

        final Map<String, byte[]> expected = record();
        expected.putAll(changes);
        assertArrayEquals(RecordCodec.encode(expected), changed);
    }

    @Test
    void addsAChangedFieldTheRecordLacksAfterTheOthers()
    {
        final Map<String, byte[]> changes = new LinkedHashMap<>();
        changes.put("größe", new byte[]{9});
        changes.put("new", new byte[]{1, 2});

        final Map<String, byte[]> decoded =
            RecordCodec.decode(RecordCodec.withChanges(RecordCodec.encode(record()), changes, null));

        assertEquals(List.of("field0", "empty", "größe", "new"), List.copyOf(decoded.keySet()));
        assertArrayEquals(new byte[]{9}, decoded.get("größe"));
        assertArrayEquals(new byte[]{1, 2}, decoded.get("new"));
    }

    @Test
    void aThreadsFieldNamesFollowRecordsWhoseFieldsDiffer()
    {
        final FieldNames names = new FieldNames();
        final Map<String, byte[]> other = new LinkedHashMap<>();
        other.put("field1", new byte[]{1});
        other.put("größe", new byte[]{2});

        final Map<String, ByteIterator> first = new HashMap<>();
        RecordCodec.decodeInto(RecordCodec.encode(record()), null, first, names);
        final Map<String, ByteIterator> second = new HashMap<>();
        RecordCodec.decodeInto(RecordCodec.encode(other), null, second, names);
        final Map<String, ByteIterator> third = new HashMap<>();
        RecordCodec.decodeInto(RecordCodec.encode(record()), null, third, names);

        assertEquals(Set.of("field0", "empty", "größe"), first.keySet());
        assertEquals(Set.of("field1", "größe"), second.keySet());
        assertArrayEquals(new byte[]{2}, second.get("größe").toArray());
        assertEquals(Set.of("field0", "empty", "größe"), third.keySet());
    }

    @Test
    void refusesToChangeATruncatedRecord()
    {
        final byte[] encoded = RecordCodec.encode(record());
        final byte[] truncated = Arrays.copyOf(encoded, 10);

        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> RecordCodec.withChanges(truncated, Map.of("empty", new byte[1]), new FieldNames()));
        assertTrue(ex.getMessage().contains("record of 10 bytes ends before the name and value length of field 0"),
            ex.getMessage());
    }
}
