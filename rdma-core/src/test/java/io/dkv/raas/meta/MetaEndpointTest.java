package io.dkv.raas.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.PortAddress;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A MetaServer's endpoint is one line of text that reads back to the same reach-data.
 */
class MetaEndpointTest
{
    @Test
    void anEndpointReadsBackAsWritten()
    {
        final MetaEndpoint tcp =
            new MetaEndpoint(7, PortAddress.tcp(new InetSocketAddress("10.0.0.2", 7000)), 0x2001, 0x5be0cd19137e2179L);
        assertEquals("meta:7@tcp:10.0.0.2:7000#00002001:5be0cd19137e2179", tcp.toString());
        assertEquals(tcp, MetaEndpoint.parse(tcp.toString()));
        final MetaEndpoint ipv6 = new MetaEndpoint(8, PortAddress.tcp(new InetSocketAddress("::1", 7001)), 1, -1L);
        assertEquals(ipv6, MetaEndpoint.parse(ipv6.toString()));
        final MetaEndpoint shm = new MetaEndpoint(9, PortAddress.shm(0x6a3134de88701f53L), 0x2001, 0x116cf67b57e1cdb2L);
        assertEquals(shm, MetaEndpoint.parse(" " + shm + "\n"));
        assertEquals(List.of(tcp, shm), MetaEndpoint.parseList(tcp + "," + shm));
    }

    @Test
    void itsNodeRecordReachesTheServerAndNeverExpires()
    {
        final MetaEndpoint endpoint = new MetaEndpoint(9, PortAddress.shm(5), 0x2001, 77);
        final NodeRecord record = endpoint.toNodeRecord();
        assertEquals(9, record.id());
        assertEquals(NodeRecord.ROLE_META, record.role());
        assertEquals(0x2001, record.dctNumber());
        assertEquals(77, record.dcKey());
        assertEquals(Long.MAX_VALUE, record.leaseExpiry());
        assertEquals(endpoint, MetaEndpoint.of(record));
    }

    @Test
    void malformedEndpointsAreRefusedWithTheText()
    {
        for (final String text : new String[]{"", "7@shm:0000000000000001#1:2", "meta:x@shm:0000000000000001#1:2",
            "meta:7@shm:0000000000000001", "meta:7@shm:0000000000000001#12", "meta:7@udp:1.2.3.4:5#1:2",
            "meta:0@shm:0000000000000001#1:2"})
        {
            final IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> MetaEndpoint.parse(text), text);
            assertTrue(refused.getMessage().contains("MetaServer"), refused.getMessage());
        }
    }
}
