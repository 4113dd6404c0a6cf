package io.dkv.client.keyspace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's glob patterns, as its stringmatchlen reads them (the compute node's differential test checks KEYS and SCAN
 * MATCH against redis-server itself).
 */
class KeyPatternTest
{
    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "*|anything|true", "*|''|false", "h?llo|hello|true", "h?llo|hllo|false", "h*llo|hllo|true",
        "h*llo|heeeello|true", "h[ae]llo|hallo|true", "h[ae]llo|hillo|false", "h[^e]llo|hallo|true",
        "h[^e]llo|hello|false", "h[a-b]llo|hbllo|true", "h[b-a]llo|hbllo|true", "h[a-b]llo|hcllo|false",
        "a\\*b|a*b|true", "a\\*b|axb|false", "[[]x]|[x]|true", "\\[x\\]|[x]|true", "[|[|false", "[a|a|true",
        "*[|x[|false", "h[a-|h-|true", "h[\\]]llo|h]llo|true", "k[]]|k]|false", "*1*0*|user:10|true",
        "*1*0*|user:01|false", "?|ab|false", "??|ab|true", "a*|a|true", "a**|a|true", "*a|''|false",
        "''|''|true", "''|a|false", "x\\|x|false"})
    void matchesAsRedis(final String pattern, final String text, final boolean expected)
    {
        assertEquals(expected, KeyPattern.of(bytes(pattern)).matches(bytes(text)));
    }

    @Test
    void ignoringCaseFoldsAsciiLetters()
    {
        assertTrue(KeyPattern.ignoringCase(bytes("MAX*")).matches(bytes("maxclients")));
        assertTrue(KeyPattern.ignoringCase(bytes("[A-C]x")).matches(bytes("bX")));
        assertFalse(KeyPattern.of(bytes("MAX*")).matches(bytes("maxclients")));
    }

    @Test
    void aLongRunOfStarsGivesUpWithoutTryingEveryWay()
    {
        final String text = "a".repeat(5_000);
        final KeyPattern pattern = KeyPattern.of(bytes("*a*a*a*a*a*a*a*a*a*a*b"));

        assertFalse(pattern.matches(bytes(text)));
    }

    @Test
    void saysWhenItMatchesEveryKey()
    {
        assertTrue(KeyPattern.of(bytes("*")).matchesEverything());
        assertTrue(KeyPattern.of(bytes("***")).matchesEverything());
        assertFalse(KeyPattern.of(bytes("*a")).matchesEverything());
        assertFalse(KeyPattern.of(bytes("")).matchesEverything());
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
