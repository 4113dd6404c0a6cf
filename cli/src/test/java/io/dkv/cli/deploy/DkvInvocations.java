package io.dkv.cli.deploy;

import io.dkv.cli.deploy.DeployTree.K8sObject;
import io.dkv.compute.ComputeNodeCommand;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code dkv} command lines that the workloads of a manifest run, worked out as Kubernetes and the container's
 * shell would (the image's entrypoint, {@code $(VAR)} expansion from the container's env, a {@code sh -c} wrapper's
 * variables), with plausible values where only a running cluster would know them (a pod's IP, its name), and checked
 * with picocli against the {@code dkv} command line itself: a subcommand that does not exist, an option it does not
 * know, a value it cannot convert or a required option missing is a problem naming the file, the object, the
 * container and what is wrong.
 *
 * <p>A shell wrapper may compute values on lines of their own ({@code NODE_ID=$((...))}, taken as a plausible
 * integer), but its {@code dkv} line may only use plain {@code $VAR} and {@code ${VAR}}, so that what the node runs
 * can be read off the manifest; the line must {@code exec} the launcher so that the JVM gets SIGTERM.
 */
final class DkvInvocations
{
    static final String COMPUTE_NODE = "compute-node";

    /** What a script's arithmetic ({@code $((...))}) is taken to give: a node id, a count, a port... */
    private static final String PLAUSIBLE_INTEGER = "101";

    private static final Pattern ASSIGNMENT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(.*)");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern K8S_REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    /**
     * A container's {@code dkv} command line.
     *
     * @param owner     the workload.
     * @param container the container's name.
     * @param env       its environment, as resolved.
     * @param args      the arguments after the launcher: the subcommand first.
     */
    record Invocation(K8sObject owner, String container, Map<String, String> env, List<String> args)
    {
        String subcommand()
        {
            return args.isEmpty() ? null : args.getFirst();
        }

        String where()
        {
            return owner.where() + ", container " + container;
        }

        /** @return an option's value ({@code --name value} or {@code --name=value}), or null when not given. */
        String option(final String name)
        {
            for (int i = 0; i < args.size(); i++)
            {
                if (args.get(i).equals(name) && i + 1 < args.size())
                {
                    return args.get(i + 1);
                }
                if (args.get(i).startsWith(name + "="))
                {
                    return args.get(i).substring(name.length() + 1);
                }
            }
            return null;
        }
    }

    /** A shell construct the checker will not guess the value of. */
    private static final class Unresolvable extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Unresolvable(final String message)
        {
            super(message, null, false, false);
        }
    }

    private final DeployTree tree;
    private final List<String> entrypoint;
    private final String repositoryRoot;
    private final String imageWorkdir;

    /**
     * @param tree           the manifests.
     * @param entrypoint     the image's ENTRYPOINT: the launcher's path in the image.
     * @param repositoryRoot where the repository is in the image, for {@code ./dkv} run from there.
     * @param imageWorkdir   the image's WORKDIR, for containers that set none.
     */
    DkvInvocations(final DeployTree tree, final List<String> entrypoint, final String repositoryRoot,
        final String imageWorkdir)
    {
        this.tree = tree;
        this.entrypoint = List.copyOf(entrypoint);
        this.repositoryRoot = repositoryRoot;
        this.imageWorkdir = imageWorkdir;
    }

    /**
     * @param problems where what cannot be worked out is said.
     * @return the command line of every container of every workload that could be worked out.
     */
    List<Invocation> resolve(final List<String> problems)
    {
        final List<Invocation> invocations = new ArrayList<>();
        for (final K8sObject workload : tree.workloads())
        {
            final Map<String, Object> podSpec = YamlNodes.map(DeployTree.podTemplate(workload).get("spec"));
            for (final Map<String, Object> container : YamlNodes.maps(podSpec.get("containers")))
            {
                final String name = YamlNodes.string(container.get("name"));
                final String where = workload.where() + ", container " + name;
                final Map<String, String> env = environment(workload, container, where, problems);
                final List<String> args = dkvArguments(container, env, where, problems);
                if (args != null)
                {
                    invocations.add(new Invocation(workload, name, env, args));
                }
            }
        }
        return invocations;
    }

    /**
     * @param dkv the {@code dkv} command line ({@code DkvMain.commandLine()}).
     * @return what picocli refuses, one problem per invocation.
     */
    static List<String> check(final List<Invocation> invocations, final CommandLine dkv)
    {
        final List<String> problems = new ArrayList<>();
        for (final Invocation invocation : invocations)
        {
            final String name = invocation.subcommand();
            final CommandLine subcommand = name == null ? null : dkv.getSubcommands().get(name);
            if (subcommand == null)
            {
                problems.add(invocation.where() + ": dkv has no subcommand '" + name + "' (it has " +
                    dkv.getSubcommands().keySet() + ")");
                continue;
            }
            final List<String> args = invocation.args().subList(1, invocation.args().size());
            final List<String> all = new ArrayList<>(List.of(name));
            all.addAll(args);
            try
            {
                // from the top, as DkvMain runs it (picocli cannot parse a subcommand's arguments on their own)
                dkv.parseArgs(all.toArray(String[]::new));
            }
            catch (final ParameterException ex)
            {
                problems.add(invocation.where() + ": dkv " + name + ": " + ex.getMessage() + " (in " + args + ")");
                continue;
            }
            if (name.equals(COMPUTE_NODE) && ComputeNodeCommand.parseSimple(args.toArray(String[]::new)) == null)
            {
                problems.add(invocation.where() + ": dkv compute-node takes " + args + " only through picocli, not " +
                    "ComputeNodeCommand.parseSimple, which spares a node's join picocli's model of every command");
            }
        }
        return problems;
    }

    private Map<String, String> environment(final K8sObject workload, final Map<String, Object> container,
        final String where, final List<String> problems)
    {
        final String podName = podName(workload);
        final Map<String, String> env = new LinkedHashMap<>();
        // set by the container runtime to the pod's name
        env.put("HOSTNAME", podName);
        for (final Map<String, Object> source : YamlNodes.maps(container.get("envFrom")))
        {
            final Map<String, Object> configMap = YamlNodes.map(source.get("configMapRef"));
            final Map<String, Object> secret = YamlNodes.map(source.get("secretRef"));
            if (!configMap.isEmpty())
            {
                tree.find("ConfigMap", workload.namespace(), YamlNodes.string(configMap.get("name")))
                    .ifPresent(found -> YamlNodes.map(found.body().get("data"))
                        .forEach((key, value) -> env.put(key, YamlNodes.string(value))));
            }
            if (!secret.isEmpty())
            {
                tree.find("Secret", workload.namespace(), YamlNodes.string(secret.get("name")))
                    .ifPresent(found -> secretData(found).forEach(env::put));
            }
        }
        for (final Map<String, Object> variable : YamlNodes.maps(container.get("env")))
        {
            final String name = YamlNodes.string(variable.get("name"));
            final Map<String, Object> from = YamlNodes.map(variable.get("valueFrom"));
            final String value;
            if (from.isEmpty())
            {
                value = expand(YamlNodes.string(variable.getOrDefault("value", "")), env);
            }
            else if (from.containsKey("fieldRef"))
            {
                final String fieldPath = YamlNodes.string(YamlNodes.map(from.get("fieldRef")).get("fieldPath"));
                value = fieldValue(fieldPath, workload, podName);
            }
            else if (from.containsKey("resourceFieldRef"))
            {
                value = "1";
            }
            else
            {
                value = keyValue(workload, from, where + ", env " + name, problems);
            }
            if (value == null)
            {
                problems.add(where + ", env " + name + ": no plausible value for " + from);
            }
            env.put(name, value == null ? "" : value);
        }
        return env;
    }

    private String keyValue(final K8sObject workload, final Map<String, Object> from, final String where,
        final List<String> problems)
    {
        final boolean isConfigMap = from.containsKey("configMapKeyRef");
        final Map<String, Object> ref = YamlNodes.map(from.get(isConfigMap ? "configMapKeyRef" : "secretKeyRef"));
        final String kind = isConfigMap ? "ConfigMap" : "Secret";
        final String name = YamlNodes.string(ref.get("name"));
        final String key = YamlNodes.string(ref.get("key"));
        final Map<String, String> data = tree.find(kind, workload.namespace(), name)
            .map(found -> isConfigMap ? stringMap(found.body().get("data")) : secretData(found))
            .orElse(null);
        if (data == null || !data.containsKey(key))
        {
            problems.add(where + ": " + kind + " " + name + (data == null ? " does not exist" : " has no key " + key));
            return "";
        }
        return data.get(key);
    }

    /** @return a Secret's values: {@code data} decoded, {@code stringData} as written (and winning, as in the API). */
    static Map<String, String> secretData(final K8sObject secret)
    {
        final Map<String, String> values = new LinkedHashMap<>();
        stringMap(secret.body().get("data")).forEach((key, value) ->
            values.put(key, new String(Base64.getDecoder().decode(value.strip()), StandardCharsets.UTF_8)));
        values.putAll(stringMap(secret.body().get("stringData")));
        return values;
    }

    private static Map<String, String> stringMap(final Object value)
    {
        final Map<String, String> strings = new LinkedHashMap<>();
        YamlNodes.map(value).forEach((key, each) -> strings.put(key, YamlNodes.string(each)));
        return strings;
    }

    /** @return a pod's name as its controller makes it: {@code <set>-0} for a StatefulSet's first. */
    static String podName(final K8sObject workload)
    {
        return workload.name() + (workload.kind().equals("StatefulSet") ? "-0" : "-5f6d8c9b7d-x2k7p");
    }

    private static String fieldValue(final String fieldPath, final K8sObject workload, final String podName)
    {
        return switch (fieldPath)
        {
            case "metadata.name" -> podName;
            case "metadata.namespace" -> workload.namespace() == null ? "default" : workload.namespace();
            case "status.podIP", "status.podIPs" -> "10.244.1.23";
            case "status.hostIP", "status.hostIPs" -> "10.0.0.12";
            case "spec.nodeName" -> "node-1";
            case "spec.serviceAccountName" -> "default";
            default -> null;
        };
    }

    /** Kubernetes's expansion of command, args and env values: {@code $(NAME)} if defined, {@code $$} for $. */
    static String expand(final String text, final Map<String, String> env)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '$')
            {
                out.append('$');
                i++;
            }
            else if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '(')
            {
                final int close = text.indexOf(')', i + 2);
                if (close < 0)
                {
                    out.append(text, i, text.length());
                    break;
                }
                final String name = text.substring(i + 2, close);
                out.append(env.containsKey(name) ? env.get(name) : "$(" + name + ")");
                i = close;
            }
            else
            {
                out.append(c);
            }
        }
        return out.toString();
    }

    private List<String> dkvArguments(final Map<String, Object> container, final Map<String, String> env,
        final String where, final List<String> problems)
    {
        final Object command = container.get("command");
        final List<String> args = YamlNodes.strings(container.get("args")).stream().map(arg -> expand(arg, env))
            .toList();
        final List<String> argv = new ArrayList<>(command == null ? entrypoint :
            YamlNodes.strings(command).stream().map(word -> expand(word, env)).toList());
        argv.addAll(args);
        final String workingDir = YamlNodes.string(container.getOrDefault("workingDir", imageWorkdir));
        if (argv.isEmpty())
        {
            problems.add(where + ": runs nothing (no command, and the image has no entrypoint)");
            return null;
        }
        if (isLauncher(argv.getFirst(), workingDir))
        {
            final List<String> dkvArgs = argv.subList(1, argv.size());
            for (final String arg : dkvArgs)
            {
                final Matcher undefined = K8S_REFERENCE.matcher(arg);
                if (undefined.find())
                {
                    problems.add(where + ": " + arg + " refers to $(" + undefined.group(1) + "), which the " +
                        "container's env does not define: Kubernetes would pass it on as it is");
                    return null;
                }
            }
            return List.copyOf(dkvArgs);
        }
        final String program = argv.getFirst().substring(argv.getFirst().lastIndexOf('/') + 1);
        if ((program.equals("sh") || program.equals("bash")) && argv.size() >= 3 && argv.get(1).equals("-c"))
        {
            return fromScript(argv.get(2), env, workingDir, where, problems);
        }
        problems.add(where + ": runs " + argv.getFirst() + ", neither dkv's launcher (" + entrypoint + ") nor a " +
            "shell (sh -c) that runs it");
        return null;
    }

    private boolean isLauncher(final String word, final String workingDir)
    {
        final String launcher = entrypoint.isEmpty() ? null : entrypoint.getFirst();
        if (launcher == null)
        {
            return false;
        }
        final String relative = launcher.startsWith(repositoryRoot + "/") ?
            "./" + launcher.substring(repositoryRoot.length() + 1) : null;
        return word.equals(launcher) || (word.equals(relative) && repositoryRoot.equals(workingDir));
    }

    private List<String> fromScript(final String script, final Map<String, String> env, final String workingDir,
        final String where, final List<String> problems)
    {
        final Map<String, String> variables = new LinkedHashMap<>(env);
        final List<List<String>> dkvLines = new ArrayList<>();
        for (final String line : script.replace("\\\n", " ").split("\n"))
        {
            final String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#"))
            {
                continue;
            }
            try
            {
                final Matcher assignment = ASSIGNMENT.matcher(trimmed);
                if (assignment.matches())
                {
                    final String value = assignment.group(2);
                    variables.put(assignment.group(1), value.contains("$((") ? PLAUSIBLE_INTEGER :
                        String.join(" ", words(value, variables)));
                    continue;
                }
                final String[] raw = trimmed.split("\\s+");
                final boolean exec = raw[0].equals("exec");
                if (raw.length > (exec ? 1 : 0) && isLauncher(raw[exec ? 1 : 0], workingDir))
                {
                    if (!exec)
                    {
                        problems.add(where + ": the script runs dkv without exec: the shell, not the JVM, would " +
                            "get SIGTERM");
                    }
                    final List<String> words = words(trimmed, variables);
                    dkvLines.add(words.subList(exec ? 2 : 1, words.size()));
                }
            }
            catch (final Unresolvable ex)
            {
                problems.add(where + ": in its script's line '" + trimmed + "', " + ex.getMessage());
                return null;
            }
        }
        if (dkvLines.size() != 1)
        {
            problems.add(where + ": its script runs dkv's launcher (" + entrypoint.getFirst() + ") " +
                dkvLines.size() + " times, not once");
            return null;
        }
        return List.copyOf(dkvLines.getFirst());
    }

    /**
     * The words of a simple shell command: quotes, backslashes and plain variables as sh reads them.
     *
     * @throws Unresolvable for anything else (command substitution, pipes, an undefined variable...).
     */
    static List<String> words(final String line, final Map<String, String> variables)
    {
        final List<String> words = new ArrayList<>();
        final StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++)
        {
            final char c = line.charAt(i);
            if (Character.isWhitespace(c))
            {
                if (inWord)
                {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                continue;
            }
            inWord = true;
            switch (c)
            {
                case '\'' ->
                {
                    final int close = line.indexOf('\'', i + 1);
                    if (close < 0)
                    {
                        throw new Unresolvable("a single quote is not closed");
                    }
                    word.append(line, i + 1, close);
                    i = close;
                }
                case '"' -> i = doubleQuoted(line, i + 1, word, variables);
                case '\\' ->
                {
                    if (i + 1 < line.length())
                    {
                        word.append(line.charAt(++i));
                    }
                }
                case '$' -> i = variable(line, i, word, variables);
                case '`', ';', '|', '&', '<', '>', '(', ')' ->
                    throw new Unresolvable("'" + c + "' makes it more than one plain command");
                default -> word.append(c);
            }
        }
        if (inWord)
        {
            words.add(word.toString());
        }
        return words;
    }

    private static int doubleQuoted(final String line, final int start, final StringBuilder word,
        final Map<String, String> variables)
    {
        for (int i = start; i < line.length(); i++)
        {
            final char c = line.charAt(i);
            if (c == '"')
            {
                return i;
            }
            if (c == '\\' && i + 1 < line.length() && "$`\"\\".indexOf(line.charAt(i + 1)) >= 0)
            {
                word.append(line.charAt(++i));
            }
            else if (c == '$')
            {
                i = variable(line, i, word, variables);
            }
            else if (c == '`')
            {
                throw new Unresolvable("a command substitution (`) hides what runs");
            }
            else
            {
                word.append(c);
            }
        }
        throw new Unresolvable("a double quote is not closed");
    }

    /** @return the index of the variable reference's last character, its value appended. */
    private static int variable(final String line, final int dollar, final StringBuilder word,
        final Map<String, String> variables)
    {
        final int next = dollar + 1;
        final String name;
        final int end;
        if (next < line.length() && line.charAt(next) == '{')
        {
            final int close = line.indexOf('}', next);
            name = close < 0 ? "" : line.substring(next + 1, close);
            end = close;
            if (!NAME.matcher(name).matches())
            {
                throw new Unresolvable("${" + name + "} is more than a variable: compute it on a line of its own");
            }
        }
        else if (next < line.length() && line.charAt(next) == '(')
        {
            throw new Unresolvable("$( hides what runs: compute it on a line of its own (NAME=...)");
        }
        else
        {
            int i = next;
            while (i < line.length() && (Character.isLetterOrDigit(line.charAt(i)) || line.charAt(i) == '_'))
            {
                i++;
            }
            name = line.substring(next, i);
            end = i - 1;
            if (name.isEmpty())
            {
                word.append('$');
                return dollar;
            }
        }
        final String value = variables.get(name);
        if (value == null)
        {
            throw new Unresolvable("$" + name + " is neither in the container's env nor set by the script");
        }
        word.append(value);
        return end;
    }
}
