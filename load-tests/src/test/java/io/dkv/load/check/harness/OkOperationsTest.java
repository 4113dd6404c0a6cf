package io.dkv.load.check.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What {@code --min-ok} counts: the completions of type ok in the clients' history files as they are being written,
 * over every file, not invocations, failures or a line not yet finished.
 */
class OkOperationsTest
{
    @TempDir
    Path dir;

    @Test
    void countsTheOkCompletionsOfEveryFileAndNothingElse() throws Exception
    {
        final Path first = dir.resolve("client-0.jsonl");
        Files.writeString(first, """
            {"index":0,"type":"invoke","process":3,"f":"write","key":"k1","value":4,"time":10}
            {"index":1,"type":"ok","process":3,"f":"write","key":"k1","value":4,"time":20}
            {"index":2,"type":"invoke","process":4,"f":"read","key":"k1","value":null,"time":30}
            {"index":3,"type":"fail","process":4,"f":"read","key":"k1","value":null,"time":40}
            {"index":4,"type":"info","process":5,"f":"cas","key":"k2","value":[1,2],"time":50}
            """, StandardCharsets.UTF_8);
        final Path second = dir.resolve("client-1.jsonl");
        Files.writeString(second, """
            {"index":0,"type":"ok","process":7,"f":"read","key":"k2","value":1,"time":10}
            {"index":1,"type": "ok","process":8,"f":"read","key":"k3","value":2,"time":11}
            {"index":2,"type":"ok","process":9,"f":"wri""", StandardCharsets.UTF_8);

        assertEquals(3, OkOperations.count(List.of(first, second)), "two whole ok lines and one; the cut one is not");
        assertEquals(0, OkOperations.count(List.of(dir.resolve("not-yet-made.jsonl"))), "a file not made yet");
    }
}
