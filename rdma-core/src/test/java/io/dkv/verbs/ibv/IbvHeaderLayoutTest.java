package io.dkv.verbs.ibv;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every struct layout and constant of the binding ({@link IbvLayout}, {@link IbvConstants}) against the installed
 * {@code <infiniband/verbs.h>}: a C program, generated from the Java side and compiled here, prints each
 * {@code sizeof}, {@code offsetof} and enum value, and every one must match. Skipped, saying why, where no C compiler
 * or no libibverbs-dev is installed (.ci/run installs both).
 */
class IbvHeaderLayoutTest
{
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    /** The C type of each layout, and whether the layout is the whole struct (not a prefix of one). */
    private record Struct(String cType, GroupLayout layout, boolean whole)
    {
    }

    private static final List<Struct> STRUCTS = List.of(
        new Struct("struct ibv_sge", IbvLayout.SGE, true),
        new Struct("struct ibv_send_wr", IbvLayout.SEND_WR, true),
        new Struct("struct ibv_recv_wr", IbvLayout.RECV_WR, true),
        new Struct("struct ibv_wc", IbvLayout.WC, true),
        new Struct("union ibv_gid", IbvLayout.GID, true),
        new Struct("struct ibv_global_route", IbvLayout.GLOBAL_ROUTE, true),
        new Struct("struct ibv_ah_attr", IbvLayout.AH_ATTR, true),
        new Struct("struct ibv_qp_cap", IbvLayout.QP_CAP, true),
        new Struct("struct ibv_qp_init_attr", IbvLayout.QP_INIT_ATTR, true),
        new Struct("struct ibv_qp_attr", IbvLayout.QP_ATTR, true),
        new Struct("struct ibv_port_attr", IbvLayout.PORT_ATTR, true),
        new Struct("struct ibv_srq_attr", IbvLayout.SRQ_ATTR, true),
        new Struct("struct ibv_srq_init_attr", IbvLayout.SRQ_INIT_ATTR, true),
        new Struct("struct ibv_device_attr", IbvLayout.DEVICE_ATTR, true),
        new Struct("struct ibv_mr", IbvLayout.MR, true),
        new Struct("struct ibv_pd", IbvLayout.PD, true),
        new Struct("struct ibv_context_ops", IbvLayout.CONTEXT_OPS, true),
        new Struct("struct ibv_context", IbvLayout.CONTEXT, false),
        new Struct("struct ibv_qp", IbvLayout.QP, true),
        new Struct("struct ibv_qp_ex", IbvLayout.QP_EX, true),
        new Struct("struct ibv_rx_hash_conf", IbvLayout.RX_HASH_CONF, true),
        new Struct("struct ibv_qp_init_attr_ex", IbvLayout.QP_INIT_ATTR_EX, true),
        new Struct("struct ibv_gid_entry", IbvLayout.GID_ENTRY, true),
        new Struct("struct mlx5dv_dc_init_attr", IbvLayout.MLX5DV_DC_INIT_ATTR, true),
        new Struct("struct mlx5dv_qp_init_attr", IbvLayout.MLX5DV_QP_INIT_ATTR, true),
        new Struct("struct mlx5dv_qp_ex", IbvLayout.MLX5DV_QP_EX, false),
        new Struct("struct ibv_cq", IbvLayout.CQ, false));

    private static Map<String, Long> header;

    @BeforeAll
    static void compileTheHeaderProbe() throws Exception
    {
        assumeTrue(Files.exists(HEADER), "no " + HEADER + ": install libibverbs-dev to check the layouts");
        final Path dir = Files.createTempDirectory("ibv-layout");
        final Path source = dir.resolve("probe.c");
        final Path binary = dir.resolve("probe");
        Files.writeString(source, probe(expected().keySet()));
        final Process compile;
        try
        {
            compile = new ProcessBuilder("cc", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            assumeTrue(false, "no C compiler (cc): install gcc to check the layouts (" + ex.getMessage() + ")");
            return;
        }
        final String compilerOutput = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(compile.waitFor(120, TimeUnit.SECONDS), "cc did not finish");
        assertEquals(0, compile.exitValue(), () -> "the probe did not compile:\n" + compilerOutput);
        final Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        final String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the probe did not finish");
        header = new LinkedHashMap<>();
        for (final String line : output.lines().toList())
        {
            final int space = line.lastIndexOf(' ');
            header.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
        }
    }

    @Test
    void everySizeAndOffsetIsTheHeadersOnThisMachine()
    {
        final List<String> wrong = new ArrayList<>();
        expected().forEach((what, value) ->
        {
            if (!what.startsWith("const ") && !value.equals(header.get(what)))
            {
                wrong.add(what + ": " + value + " here, " + header.get(what) + " in verbs.h");
            }
        });
        assertEquals(List.of(), wrong, "layouts that differ from " + HEADER);
    }

    @Test
    void everyConstantIsTheHeadersValue()
    {
        final List<String> wrong = new ArrayList<>();
        int constants = 0;
        for (final Map.Entry<String, Long> entry : expected().entrySet())
        {
            if (entry.getKey().startsWith("const "))
            {
                constants++;
                if (!entry.getValue().equals(header.get(entry.getKey())))
                {
                    wrong.add(entry.getKey() + ": " + entry.getValue() + " here, " + header.get(entry.getKey()));
                }
            }
        }
        assertEquals(List.of(), wrong, "constants that differ from " + HEADER);
        assertTrue(constants > 50, constants + " constants checked");
    }

    /** @return what the Java side says, keyed as the probe prints it: "sizeof T", "offsetof T a.b", "const NAME". */
    private static Map<String, Long> expected()
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        for (final Struct struct : STRUCTS)
        {
            if (struct.whole())
            {
                values.put("sizeof " + struct.cType(), struct.layout().byteSize());
                values.put("alignof " + struct.cType(), struct.layout().byteAlignment());
            }
            fields(struct.cType(), struct.layout(), "", 0, values);
        }
        for (final Field field : IbvConstants.class.getDeclaredFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class)
            {
                try
                {
                    values.put("const " + field.getName(), (long)field.getInt(null));
                }
                catch (final IllegalAccessException ex)
                {
                    throw new IllegalStateException(ex);
                }
            }
        }
        return values;
    }

    private static void fields(final String cType, final GroupLayout group, final String prefix, final long base,
        final Map<String, Long> values)
    {
        for (final MemoryLayout member : group.memberLayouts())
        {
            if (member instanceof PaddingLayout || member.name().isEmpty())
            {
                continue;
            }
            final String name = member.name().get();
            final long offset = base + (group instanceof UnionLayout ? 0 :
                group.byteOffset(MemoryLayout.PathElement.groupElement(name)));
            final boolean anonymous = name.startsWith(IbvLayout.ANONYMOUS);
            final String path = anonymous ? prefix : prefix + name;
            if (!anonymous)
            {
                values.put("offsetof " + cType + " " + path, offset);
            }
            if (member instanceof GroupLayout inner)
            {
                fields(cType, inner, anonymous ? prefix : path + ".", offset, values);
            }
        }
    }

    private static String probe(final Iterable<String> keys)
    {
        final StringBuilder c = new StringBuilder(
            "#include <stddef.h>\n#include <stdio.h>\n#include <infiniband/verbs.h>\n#include <infiniband/mlx5dv.h>\n" +
            "int main(void)\n{\n");
        for (final String key : keys)
        {
            final String expression;
            if (key.startsWith("sizeof "))
            {
                expression = "sizeof(" + key.substring(7) + ")";
            }
            else if (key.startsWith("alignof "))
            {
                expression = "_Alignof(" + key.substring(8) + ")";
            }
            else if (key.startsWith("offsetof "))
            {
                final int space = key.lastIndexOf(' ');
                expression = "offsetof(" + key.substring(9, space) + ", " + key.substring(space + 1) + ")";
            }
            else
            {
                expression = key.substring(6);
            }
            c.append("    printf(\"%s %lld\\n\", \"").append(key).append("\", (long long)(").append(expression)
                .append("));\n");
        }
        return c.append("    return 0;\n}\n").toString();
    }
}
