package io.dkv.load.ycsb;

import io.dkv.load.bench.ycsb.InProcessStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dkv binding against a store in this JVM: records round-trip whole and field by field, updates
 * keep the fields they do not name, also when two threads update different fields of one record.
 */
@Timeout(60)
class DkvYcsbClientTest
{
    private static final String TABLE = "usertable";
    private static InProcessStore store;

    private final DkvYcsbClient db = new DkvYcsbClient(store.client());

    @BeforeAll
    static void startStore()
    {
        store = InProcessStore.start(InProcessStore.sizedFor(1_000, 8 << 20, 4));
    }

    @AfterAll
    static void stopStore()
    {
        store.close();
    }

    private static Map<String, ByteIterator> fields(final String... namesAndValues)
    {
        final Map<String, String> values = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            values.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(values);
    }

    private Map<String, String> read(final String key, final Set<String> fields)
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read(TABLE, key, fields, result), key);
        return StringByteIterator.getStringMap(result);
    }

    @Test
    void readsEveryFieldOfARecordInserted()
    {
        assertEquals(Status.OK, db.insert(TABLE, "user1", fields("field0", "a", "field1", "bb", "field2", "")));

        assertEquals(Map.of("field0", "a", "field1", "bb", "field2", ""), read("user1", null));
    }

    @Test
    void readsOnlyTheFieldsAskedFor()
    {
        assertEquals(Status.OK, db.insert(TABLE, "user2", fields("field0", "a", "field1", "bb", "field2", "ccc")));

        assertEquals(Map.of("field1", "bb"), read("user2", Set.of("field1")));
    }

    @Test
    void updateReplacesTheFieldsGivenAndKeepsTheOthers()
    {
        assertEquals(Status.OK, db.insert(TABLE, "user3", fields("field0", "a", "field1", "bb")));
        assertEquals(Status.OK, db.update(TABLE, "user3", fields("field1", "new", "field2", "added")));

        assertEquals(Map.of("field0", "a", "field1", "new", "field2", "added"), read("user3", null));
    }

    @Test
    void deleteRemovesTheRecord()
    {
        assertEquals(Status.OK, db.insert(TABLE, "user4", fields("field0", "a")));
        assertEquals(Status.OK, db.delete(TABLE, "user4"));

        assertEquals(Status.NOT_FOUND, db.read(TABLE, "user4", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.update(TABLE, "user4", fields("field0", "b")));
        assertEquals(Status.NOT_FOUND, db.delete(TABLE, "user4"));
    }

    @Test
    void tablesAreApart()
    {
        assertEquals(Status.OK, db.insert(TABLE, "user5", fields("field0", "a")));

        assertEquals(Status.NOT_FOUND, db.read("othertable", "user5", null, new HashMap<>()));
    }

    @Test
    void scansReturnRecordsInKeyOrderFromTheStartKey()
    {
        for (int i = 10; i < 20; i++)
        {
            assertEquals(Status.OK, db.insert("scantable", "user" + i, fields("field0", "v" + i, "field1", "w")));
        }
        assertEquals(Status.OK, db.delete("scantable", "user13"));
        final Vector<HashMap<String, ByteIterator>> result = new Vector<>();
        assertEquals(Status.OK, db.scan("scantable", "user115", 3, Set.of("field0"), result));
        final List<Map<String, String>> records = new ArrayList<>();
        result.forEach(record -> records.add(StringByteIterator.getStringMap(record)));
        assertEquals(List.of(Map.of("field0", "v12"), Map.of("field0", "v14"), Map.of("field0", "v15")), records);
        final Vector<HashMap<String, ByteIterator>> rest = new Vector<>();
        assertEquals(Status.OK, db.scan("scantable", "user18", 100, null, rest));
        assertEquals(2, rest.size());
    }

    @Test
    void concurrentUpdatesOfDifferentFieldsAreAllKept() throws Exception
    {
        final int updates = 300;
        assertEquals(Status.OK, db.insert(TABLE, "user6", fields("field0", "-1", "field1", "-1")));
        final CyclicBarrier start = new CyclicBarrier(2);
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<?>[] writers = new Future<?>[2];
            for (int w = 0; w < 2; w++)
            {
                final String field = "field" + w;
                writers[w] = threads.submit(() ->
                {
                    final DkvYcsbClient own = new DkvYcsbClient(store.client());
                    start.await();
                    for (int i = 0; i < updates; i++)
                    {
                        assertEquals(Status.OK, own.update(TABLE, "user6", fields(field, Integer.toString(i))));
                        // each writer's own field must hold its latest value, whatever the other one wrote meanwhile
                        final Map<String, ByteIterator> result = new HashMap<>();
                        assertEquals(Status.OK, own.read(TABLE, "user6", Set.of(field), result));
                        assertEquals(Integer.toString(i), result.get(field).toString(), field);
                    }
                    return null;
                });
            }
            for (final Future<?> writer : writers)
            {
                writer.get();
            }
        }
        finally
        {
            threads.shutdownNow();
        }

        final String last = Integer.toString(updates - 1);
        assertEquals(Map.of("field0", last, "field1", last), read("user6", null));
    }

    @Test
    void instancesMadeByReflectionUseTheClientHandedOver() throws Exception
    {
        final DB reflective = (DB)Class.forName(DkvYcsbClient.class.getName()).getDeclaredConstructor().newInstance();
        DkvYcsbClient.handOver(store.client());
        try
        {
            reflective.init();
        }
        finally
        {
            DkvYcsbClient.handOver(null);
        }
        assertEquals(Status.OK, reflective.insert(TABLE, "user7", fields("field0", "a")));
        assertEquals(Map.of("field0", "a"), read("user7", null));

        final DB orphan = new DkvYcsbClient();
        final DBException ex = assertThrows(DBException.class, orphan::init);
        assertTrue(ex.getMessage().contains("no dkv client was handed over"), ex.getMessage());
    }
}
