/**
 * The benchmarks' results as one self-contained HTML page: tables, goals and plots drawn as inline SVG, with no
 * script and nothing fetched, so that the file reads the same wherever it is opened.
 */
package io.dkv.load.bench.html;
