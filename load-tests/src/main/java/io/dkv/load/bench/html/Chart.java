package io.dkv.load.bench.html;

/**
 * A plot that draws itself as inline SVG.
 */
public interface Chart
{
    /** @return what the plot shows, its heading on the page. */
    String title();

    /** @return an {@code <svg>} element, complete and self-contained. */
    String svg();
}
