package io.dkv.compute.autoscale;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a compute node's metrics endpoint (Prometheus text format): each sample as its series, the name with its
 * labels exactly as written, mapped to its value. A node that does not answer within the timeout gives nothing, and
 * the autoscaler counts it as missing rather than waiting on it.
 */
public final class MetricsScrape
{
    private static final int MAX_BYTES = 1 << 20;

    private final String host;
    private final int timeoutMs;

    /**
     * @param host      where the nodes' endpoints listen.
     * @param timeoutMs to connect, and again to read.
     */
    public MetricsScrape(final String host, final int timeoutMs)
    {
        this.host = host;
        this.timeoutMs = timeoutMs;
    }

    /**
     * @param port the node's metrics port.
     * @return its samples by series.
     * @throws IOException when it cannot be read, with the address.
     */
    public Map<String, Double> scrape(final int port) throws IOException
    {
        final String address = host.contains(":") ? "[" + host + "]" : host;
        final URI uri = URI.create("http://" + address + ":" + port + "/metrics");
        final HttpURLConnection connection = (HttpURLConnection)uri.toURL().openConnection();
        connection.setConnectTimeout(timeoutMs);
        connection.setReadTimeout(timeoutMs);
        connection.setUseCaches(false);
        try
        {
            if (connection.getResponseCode() != HttpURLConnection.HTTP_OK)
            {
                throw new IOException(uri + " answered " + connection.getResponseCode());
            }
            try (InputStream in = connection.getInputStream())
            {
                return parse(new String(in.readNBytes(MAX_BYTES), StandardCharsets.UTF_8));
            }
        }
        finally
        {
            connection.disconnect();
        }
    }

    /**
     * @param text Prometheus text exposition: comments, and lines of a series, a value and perhaps a timestamp.
     * @return the samples by series; lines that do not parse are left out.
     */
    public static Map<String, Double> parse(final String text)
    {
        final Map<String, Double> samples = new HashMap<>();
        for (final String line : text.split("\n"))
        {
            final String sample = line.strip();
            if (sample.isEmpty() || sample.startsWith("#"))
            {
                continue;
            }
            // the series ends at the first space after its labels' closing brace (label values may hold spaces and
            // braces; the value and timestamp hold neither)
            final int close = sample.indexOf('{') < 0 ? -1 : sample.lastIndexOf('}');
            final int space = sample.indexOf(' ', Math.max(0, close));
            if (space <= 0)
            {
                continue;
            }
            final String rest = sample.substring(space + 1).strip();
            final int end = rest.indexOf(' ');
            try
            {
                samples.put(sample.substring(0, space), parseValue(end < 0 ? rest : rest.substring(0, end)));
            }
            catch (final NumberFormatException ex)
            {
                // not a sample: left out
            }
        }
        return samples;
    }

    private static double parseValue(final String value)
    {
        return switch (value)
        {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
        };
    }
}
