package io.dkv.checker.history;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Histories as JSON lines, one event per line, with Jepsen's field names:
 * <pre>
 * {"index":0,"type":"invoke","process":3,"f":"cas","key":"k7","value":[1,2],"time":1520331}
 * {"index":1,"type":"ok","process":3,"f":"cas","key":"k7","value":[1,2],"time":1533870}
 * </pre>
 * {@code key} and {@code error} are left out when null; values are null, integers, strings or arrays.
 */
public final class HistoryJson
{
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private HistoryJson()
    {
    }

    public static void write(final History history, final Path file)
    {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            for (final Op op : history.ops())
            {
                writeLine(op, out);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write the history to " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** Write one event and a newline. */
    public static void writeLine(final Op op, final Writer out) throws IOException
    {
        out.write(line(op));
        out.write('\n');
    }

    public static String line(final Op op)
    {
        final StringWriter text = new StringWriter(96);
        try (JsonGenerator json = JSON.createGenerator(text))
        {
            json.writeStartObject();
            json.writeNumberField("index", op.index());
            json.writeStringField("type", op.type().jsonName());
            json.writeNumberField("process", op.process());
            json.writeStringField("f", op.f());
            if (op.key() != null)
            {
                json.writeStringField("key", op.key());
            }
            json.writeFieldName("value");
            writeValue(json, op.value());
            json.writeNumberField("time", op.time());
            if (op.error() != null)
            {
                json.writeStringField("error", op.error());
            }
            json.writeEndObject();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return text.toString();
    }

    public static History read(final Path file)
    {
        final List<Op> ops = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null)
            {
                number++;
                if (!line.isBlank())
                {
                    try
                    {
                        ops.add(parse(line));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new IllegalArgumentException(file + " line " + number + ": " + ex.getMessage(), ex);
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the history " + file + ": " + ex.getMessage(), ex);
        }
        return History.of(ops);
    }

    /** @return the event one JSON line describes. */
    public static Op parse(final String line)
    {
        try (JsonParser json = JSON.createParser(line))
        {
            if (json.nextToken() != JsonToken.START_OBJECT)
            {
                throw new IllegalArgumentException("not a JSON object: " + line);
            }
            long index = -1;
            OpType type = null;
            Integer process = null;
            String f = null;
            String key = null;
            Object value = null;
            Long time = null;
            String error = null;
            while (json.nextToken() == JsonToken.FIELD_NAME)
            {
                final String field = json.currentName();
                final JsonToken token = json.nextToken();
                switch (field)
                {
                    case "index" -> index = json.getLongValue();
                    case "type" -> type = OpType.ofJsonName(json.getText());
                    case "process" -> process = json.getIntValue();
                    case "f" -> f = json.getText();
                    case "key" -> key = token == JsonToken.VALUE_NULL ? null : json.getText();
                    case "value" -> value = readValue(json);
                    case "time" -> time = json.getLongValue();
                    case "error" -> error = token == JsonToken.VALUE_NULL ? null : json.getText();
                    default -> json.skipChildren();
                }
            }
            if (type == null || process == null || f == null || time == null)
            {
                throw new IllegalArgumentException("an event needs type, process, f and time: " + line);
            }
            return new Op(index, type, process, f, key, value, time, error);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("not a history event (" + ex.getMessage() + "): " + line, ex);
        }
    }

    /** @return a value as JSON text, for messages. */
    public static String valueText(final Object value)
    {
        final StringWriter text = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(text))
        {
            writeValue(json, value);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return text.toString();
    }

    private static void writeValue(final JsonGenerator json, final Object value) throws IOException
    {
        switch (value)
        {
            case null -> json.writeNull();
            case Long number -> json.writeNumber(number);
            case Integer number -> json.writeNumber(number);
            case String text -> json.writeString(text);
            case List<?> list ->
            {
                json.writeStartArray();
                for (final Object element : list)
                {
                    writeValue(json, element);
                }
                json.writeEndArray();
            }
            default -> throw new IllegalArgumentException("not a history value: " + value + " (" +
                value.getClass().getName() + ")");
        }
    }

    private static Object readValue(final JsonParser json) throws IOException
    {
        return switch (json.currentToken())
        {
            case VALUE_NULL -> null;
            case VALUE_NUMBER_INT -> json.getLongValue();
            case VALUE_STRING -> json.getText();
            case START_ARRAY ->
            {
                final List<Object> list = new ArrayList<>();
                while (json.nextToken() != JsonToken.END_ARRAY)
                {
                    list.add(readValue(json));
                }
                yield list;
            }
            default -> throw new IllegalArgumentException("not a history value: " + json.currentToken() + " " +
                json.getText());
        };
    }
}
