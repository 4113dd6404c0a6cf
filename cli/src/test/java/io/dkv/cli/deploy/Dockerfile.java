package io.dkv.cli.deploy;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Dockerfile read as far as the deploy checks need: its stages, each with its base image and instructions in order
 * (continuation lines joined, comments dropped), and the JSON arrays of exec-form instructions.
 *
 * @param file   its path under {@code deploy/}.
 * @param stages its stages, the image's own last.
 */
record Dockerfile(String file, List<Stage> stages)
{
    /**
     * @param instruction upper case, e.g. {@code COPY}.
     * @param arguments   the rest of the line.
     */
    record Instruction(String instruction, String arguments)
    {
        /** @return an exec-form instruction's array (a JSON array is YAML too), or null for the shell form. */
        List<String> execForm()
        {
            if (!arguments.startsWith("["))
            {
                return null;
            }
            return YamlNodes.strings(new Yaml(new SafeConstructor(new LoaderOptions())).load(arguments));
        }
    }

    /**
     * @param from         the base image (the FROM line's first word after any flags).
     * @param instructions the stage's instructions after FROM.
     */
    record Stage(String from, List<Instruction> instructions)
    {
        /** @return the stage's last instruction of this kind, or null. */
        Instruction last(final String instruction)
        {
            Instruction found = null;
            for (final Instruction each : instructions)
            {
                if (each.instruction().equals(instruction))
                {
                    found = each;
                }
            }
            return found;
        }
    }

    static Dockerfile parse(final String file, final String text)
    {
        final List<String> logicalLines = new ArrayList<>();
        final StringBuilder line = new StringBuilder();
        for (final String physical : text.split("\n", -1))
        {
            final String trimmed = physical.strip();
            if (trimmed.startsWith("#"))
            {
                continue;
            }
            if (trimmed.endsWith("\\"))
            {
                line.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            line.append(trimmed);
            if (!line.toString().isBlank())
            {
                logicalLines.add(line.toString().strip().replaceAll("\\s+", " "));
            }
            line.setLength(0);
        }
        final List<Stage> stages = new ArrayList<>();
        for (final String logical : logicalLines)
        {
            final int space = logical.indexOf(' ');
            final String instruction = (space < 0 ? logical : logical.substring(0, space)).toUpperCase(Locale.ROOT);
            final String arguments = space < 0 ? "" : logical.substring(space + 1).strip();
            if (instruction.equals("FROM"))
            {
                final String image = List.of(arguments.split(" ")).stream().filter(word -> !word.startsWith("--"))
                    .findFirst().orElse("");
                stages.add(new Stage(image, new ArrayList<>()));
            }
            else if (!stages.isEmpty())
            {
                stages.getLast().instructions().add(new Instruction(instruction, arguments));
            }
        }
        return new Dockerfile(file, stages);
    }

    /**
     * @return where the build context (the repository) is copied in the image: the destination of the first
     *         {@code COPY . DEST}, resolved against that stage's WORKDIR; null when nothing copies it.
     */
    String repositoryRootInImage()
    {
        for (final Stage stage : stages)
        {
            String workdir = "/";
            for (final Instruction each : stage.instructions())
            {
                final List<String> words = List.of(each.arguments().split(" "));
                if (each.instruction().equals("WORKDIR"))
                {
                    workdir = resolve(workdir, each.arguments());
                }
                else if (each.instruction().equals("COPY"))
                {
                    final List<String> paths = words.stream().filter(word -> !word.startsWith("--")).toList();
                    if (paths.size() == 2 && paths.get(0).equals(".") && words.size() == paths.size())
                    {
                        return resolve(workdir, paths.get(1));
                    }
                }
            }
        }
        return null;
    }

    /** @return the image's working directory: the last WORKDIR of its stage, or /. */
    String imageWorkdir()
    {
        String workdir = "/";
        for (final Instruction each : imageStage().instructions())
        {
            if (each.instruction().equals("WORKDIR"))
            {
                workdir = resolve(workdir, each.arguments());
            }
        }
        return workdir;
    }

    private static String resolve(final String workdir, final String path)
    {
        return Path.of(workdir).resolve(path).normalize().toString();
    }

    /** @return the stage the image is made of: the last. */
    Stage imageStage()
    {
        return stages.getLast();
    }
}
