package io.dkv.cli.deploy;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The files of {@code deploy/} as the tools that read them see them: the Kubernetes objects of every YAML document
 * (kubectl's YAML is 1.1, as SnakeYAML's, so {@code 0400} is octal to both), the YAML documents that are no objects
 * (a Helm values file), and the Dockerfile. A file of a kind not known here is an error, so that a file added to
 * {@code deploy/} is either checked or noticed.
 */
final class DeployTree
{
    /**
     * A Kubernetes object and the file it came from, for messages that say where to look.
     *
     * @param file its file, relative to {@code deploy/}.
     * @param body the object as parsed.
     */
    record K8sObject(String file, Map<String, Object> body)
    {
        String kind()
        {
            return YamlNodes.string(body.get("kind"));
        }

        String name()
        {
            return YamlNodes.string(YamlNodes.map(body.get("metadata")).get("name"));
        }

        /** @return its namespace, or null for a cluster-scoped object or one that does not say. */
        String namespace()
        {
            return YamlNodes.string(YamlNodes.map(body.get("metadata")).get("namespace"));
        }

        Map<String, Object> spec()
        {
            return YamlNodes.map(body.get("spec"));
        }

        /** @return where it is, as a message names it: {@code compute-node.yaml: Deployment/dkv-compute-node}. */
        String where()
        {
            return file + ": " + kind() + (name() == null ? "" : "/" + name());
        }
    }

    private final List<K8sObject> objects;
    private final Map<String, List<Map<String, Object>>> otherDocuments;
    private final Dockerfile dockerfile;

    private DeployTree(
        final List<K8sObject> objects,
        final Map<String, List<Map<String, Object>>> otherDocuments,
        final Dockerfile dockerfile)
    {
        this.objects = List.copyOf(objects);
        this.otherDocuments = otherDocuments;
        this.dockerfile = dockerfile;
    }

    /**
     * @param deployDir the repository's {@code deploy/}.
     * @throws IllegalStateException naming a file this class does not know how to check.
     */
    static DeployTree load(final Path deployDir)
    {
        final List<K8sObject> objects = new ArrayList<>();
        final Map<String, List<Map<String, Object>>> otherDocuments = new LinkedHashMap<>();
        Dockerfile dockerfile = null;
        try (Stream<Path> files = Files.walk(deployDir))
        {
            for (final Path path : files.filter(Files::isRegularFile).sorted().toList())
            {
                final String file = deployDir.relativize(path).toString();
                final String text = Files.readString(path);
                if (file.endsWith(".yaml") || file.endsWith(".yml"))
                {
                    addYaml(file, text, objects, otherDocuments);
                }
                else if (path.getFileName().toString().equals("Dockerfile"))
                {
                    dockerfile = Dockerfile.parse(file, text);
                }
                else if (!file.endsWith(".md"))
                {
                    throw new IllegalStateException("deploy/" + file + " is a kind of file DeployManifestsTest does " +
                        "not check: teach DeployTree what it is");
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return new DeployTree(objects, otherDocuments, dockerfile);
    }

    /** @return the objects of YAML text given in code (a test's own manifest), with no Dockerfile. */
    static DeployTree ofYaml(final String file, final String yaml)
    {
        final List<K8sObject> objects = new ArrayList<>();
        addYaml(file, yaml, objects, new LinkedHashMap<>());
        return new DeployTree(objects, Map.of(), null);
    }

    private static void addYaml(
        final String file,
        final String text,
        final List<K8sObject> objects,
        final Map<String, List<Map<String, Object>>> otherDocuments)
    {
        // SafeConstructor: plain maps, lists and scalars, never a class named by a tag
        final Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
        for (final Object document : yaml.loadAll(text))
        {
            if (document == null)
            {
                continue;
            }
            final Map<String, Object> body = YamlNodes.map(document);
            if (body.containsKey("apiVersion") && body.containsKey("kind"))
            {
                objects.add(new K8sObject(file, body));
            }
            else
            {
                otherDocuments.computeIfAbsent(file, key -> new ArrayList<>()).add(body);
            }
        }
    }

    List<K8sObject> objects()
    {
        return objects;
    }

    /** @return the objects of this kind, in file order. */
    List<K8sObject> objects(final String kind)
    {
        return objects.stream().filter(object -> kind.equals(object.kind())).toList();
    }

    /** @return the object of this kind and name in this namespace (null: any or none). */
    Optional<K8sObject> find(final String kind, final String namespace, final String name)
    {
        return objects.stream()
            .filter(object -> kind.equals(object.kind()) && name.equals(object.name()))
            .filter(object -> namespace == null || object.namespace() == null || namespace.equals(object.namespace()))
            .findFirst();
    }

    /** @return the YAML documents that are not Kubernetes objects (a Helm values file), by file. */
    Map<String, List<Map<String, Object>>> otherDocuments()
    {
        return otherDocuments;
    }

    /** @return the Dockerfile, or null where there is none. */
    Dockerfile dockerfile()
    {
        return dockerfile;
    }

    /**
     * @return the workloads (objects with a pod template), in file order.
     */
    List<K8sObject> workloads()
    {
        return objects.stream().filter(object -> !podTemplate(object).isEmpty()).toList();
    }

    /** @return a workload's pod template ({@code spec.template}), or an empty map for any other object. */
    static Map<String, Object> podTemplate(final K8sObject object)
    {
        return switch (object.kind())
        {
            case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job" ->
                YamlNodes.map(object.spec().get("template"));
            default -> Map.of();
        };
    }
}
