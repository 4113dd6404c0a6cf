package io.dkv.raas;

import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.StandaloneDriver;
import io.dkv.verbs.VerbsContext;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A process driven by a test over stdin/stdout, one command per line, answering {@code ok ...} or
 * {@code error ...}:
 *
 * <pre>
 * driver PROVIDER NAME NODE_ID       run a standalone driver with a 4 KiB region named "shared"
 * attach NAME [NODE_ID]              attach to the standalone driver of that name,  ok NODE_ID
 *                                    as a node of its own if given
 * lookup REGION                      ok
 * open NODE_ID                       ok
 * malloc SIZE REGION                 allocate on the attached driver's node
 * faa COUNT                          COUNT fetch-and-adds of 1 on word 0 of the region looked up  ok COUNT
 * </pre>
 */
final class RaasChild
{
    public static void main(final String[] args) throws Exception
    {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StandaloneDriver driver = null;
        Raas raas = null;
        RemoteRegion region = null;
        Connection connection = null;
        String line;
        while ((line = in.readLine()) != null)
        {
            final String[] words = line.trim().split(" ");
            try
            {
                switch (words[0])
                {
                    case "driver" ->
                    {
                        final RaasContext context = new RaasContext()
                            .verbs(new VerbsContext().provider(words[1]).tcpAddress("127.0.0.1:0"))
                            .driverName(words[2]).nodeId(Long.parseLong(words[3])).clientTimeoutMs(1000)
                            .requestSlots(1024);
                        driver = StandaloneDriver.launch(context, new StaticDirectory());
                        driver.driver().malloc(driver.driver().self().id(), 4096, "shared");
                        System.out.println("ok");
                    }
                    case "attach" ->
                    {
                        raas = AttachedRaas.attach(new RaasContext().driverName(words[1]).requestSlots(1024)
                            .clientDataBytes(1 << 20).attachAs(words.length > 2 ? Long.parseLong(words[2]) : 0));
                        System.out.println("ok " + raas.self().id());
                    }
                    case "lookup" ->
                    {
                        region = raas.lookup(words[1]);
                        System.out.println("ok");
                    }
                    case "open" ->
                    {
                        connection = raas.open(Long.parseLong(words[1]), null);
                        System.out.println("ok");
                    }
                    case "malloc" ->
                    {
                        raas.malloc(raas.self().id(), Long.parseLong(words[1]), words[2]);
                        System.out.println("ok");
                    }
                    case "faa" ->
                    {
                        final int count = Integer.parseInt(words[1]);
                        for (int i = 0; i < count; i++)
                        {
                            connection.faa(region, 0, 1);
                        }
                        System.out.println("ok " + count);
                    }
                    default -> System.out.println("error unknown command " + words[0]);
                }
            }
            catch (final RuntimeException ex)
            {
                System.out.println("error " + ex.getMessage());
            }
            System.out.flush();
        }
        if (raas != null)
        {
            raas.close();
        }
        if (driver != null)
        {
            driver.close();
        }
        System.exit(0);
    }
}
