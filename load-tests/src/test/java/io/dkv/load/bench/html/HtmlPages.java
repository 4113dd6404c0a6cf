package io.dkv.load.bench.html;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads a page or a chart back as XML, as the tests of the benchmarks' {@code --html} do: it must parse, and fetch
 * nothing.
 */
public final class HtmlPages
{
    private static final Pattern REMOTE = Pattern.compile("(src|href)\\s*=\\s*[\"']?\\s*(https?:)?//");

    private HtmlPages()
    {
    }

    /** @return the markup parsed, after checking it is well-formed and self-contained. */
    public static Document parse(final String markup)
    {
        assertFalse(REMOTE.matcher(markup).find(), () -> "a link or source outside the page in\n" + markup);
        assertFalse(markup.contains("<script"), "no script");
        assertFalse(markup.contains("<link"), "no linked style");
        try
        {
            final DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(markup)));
        }
        catch (final Exception ex)
        {
            throw new AssertionError("not well-formed: " + ex.getMessage() + " in\n" + markup, ex);
        }
    }

    /** Check a page's frame: its title, and at least this many charts and tables. */
    public static Document parsePage(final String markup, final String title, final int charts, final int tables)
    {
        final Document page = parse(markup);
        assertEquals("html", page.getDocumentElement().getTagName());
        assertEquals(title, page.getElementsByTagName("h1").item(0).getTextContent());
        assertTrue(page.getElementsByTagName("svg").getLength() >= charts,
            () -> "at least " + charts + " charts in\n" + markup);
        assertTrue(page.getElementsByTagName("table").getLength() >= tables,
            () -> "at least " + tables + " tables in\n" + markup);
        return page;
    }

    /** @return the elements of that name, in document order. */
    public static List<Element> elements(final Document document, final String name)
    {
        final NodeList nodes = document.getElementsByTagName(name);
        final List<Element> elements = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++)
        {
            elements.add((Element)nodes.item(i));
        }
        return elements;
    }
}
