package io.dkv.cli.deploy;

import io.dkv.cli.DkvMain;
import io.dkv.cli.deploy.DeployTree.K8sObject;
import io.dkv.cli.deploy.DkvInvocations.Invocation;
import io.dkv.compute.ComputeNodeConfiguration;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files of {@code deploy/} (the image and the Kubernetes manifests) run what this repository builds: every
 * container's dkv command line parses with the dkv command line of this tree, every name one object gives another
 * exists, the Services reach ports the pods open, the autoscaler scales the compute nodes on a metric they serve, the
 * MetaServer's endpoint the nodes are given is the one it prints, and the cluster secret is mounted as dkv accepts it.
 * Nothing is started but one MetaServer in this process; no container, no cluster, no network.
 */
class DeployManifestsTest
{
    private static final Path REPOSITORY = repositoryRoot();
    private static final DeployTree DEPLOY = DeployTree.load(REPOSITORY.resolve("deploy"));
    private static final Pattern ENDPOINT_HOST = Pattern.compile("meta:\\d+@tcp:(.+):(\\d+)#.*");

    @TempDir
    Path dir;

    /** @return the repository's root: surefire runs in the module's directory, a developer's IDE maybe elsewhere. */
    private static Path repositoryRoot()
    {
        for (Path path = Path.of("").toAbsolutePath(); path != null; path = path.getParent())
        {
            if (Files.isDirectory(path.resolve("deploy")) && Files.isRegularFile(path.resolve("dkv")))
            {
                return path;
            }
        }
        throw new IllegalStateException("no repository root (with deploy/ and dkv) above " +
            Path.of("").toAbsolutePath());
    }

    /** @return the command lines of deploy/'s workloads, which run the image deploy/Dockerfile makes. */
    private static DkvInvocations deployInvocations()
    {
        final Dockerfile dockerfile = DEPLOY.dockerfile();
        final List<String> entrypoint = dockerfile.imageStage().last("ENTRYPOINT").execForm();
        return new DkvInvocations(DEPLOY, entrypoint, dockerfile.repositoryRootInImage(), dockerfile.imageWorkdir());
    }

    /** @return every container's dkv command line, failing on any that cannot be worked out. */
    private static List<Invocation> invocations()
    {
        final List<String> problems = new ArrayList<>();
        final List<Invocation> invocations = deployInvocations().resolve(problems);
        assertEquals(List.of(), problems, "containers whose dkv command line cannot be worked out");
        return invocations;
    }

    private static Invocation invocationOf(final String subcommand)
    {
        final List<Invocation> found = invocations().stream()
            .filter(invocation -> subcommand.equals(invocation.subcommand())).toList();
        assertEquals(1, found.size(), () -> "containers running dkv " + subcommand + ": " + found);
        return found.getFirst();
    }

    /** @return the problems of the command lines of deploy/'s workloads. */
    private static List<String> checkDeploy()
    {
        return check(deployInvocations());
    }

    /** @return the problems of the command lines of a manifest given in code, whose image is as deploy/'s is. */
    private static List<String> checkInline(final String file, final String yaml)
    {
        return check(new DkvInvocations(DeployTree.ofYaml(file, yaml), List.of("/dkv/dkv"), "/dkv", "/dkv"));
    }

    private static List<String> check(final DkvInvocations invocations)
    {
        final List<String> problems = new ArrayList<>();
        final List<Invocation> resolved = invocations.resolve(problems);
        problems.addAll(DkvInvocations.check(resolved, DkvMain.commandLine()));
        return problems;
    }

    @Test
    void everyContainerRunsADkvCommandLineThatThisTreesDkvParses()
    {
        assertEquals(List.of(), checkDeploy());
        assertEquals(Set.of("meta", "memory-node", "compute-node"),
            invocations().stream().map(Invocation::subcommand).collect(Collectors.toSet()),
            "each role runs from the manifests");
    }

    @Test
    void aMadeUpFlagIsNamedWithItsFileObjectAndContainer()
    {
        final List<String> problems = checkInline("made-up.yaml", deployment("""
            args: [compute-node, --port, "6379", --meta, "$(META)", --cluster-secret-file, /etc/dkv/s, --made-up, "1"]
            """));
        assertEquals(1, problems.size(), problems::toString);
        final String problem = problems.getFirst();
        assertTrue(problem.startsWith("made-up.yaml: Deployment/made-up, container node: "), problem);
        assertTrue(problem.contains("--made-up"), problem);
    }

    @Test
    void aMadeUpSubcommandIsNamed()
    {
        final List<String> problems = checkInline("made-up.yaml", deployment("""
            command: [/bin/sh, -c]
            args:
              - |
                exec /dkv/dkv memory-nod --meta "$META" --cluster-secret-file /etc/dkv/s
            """));
        assertEquals(1, problems.size(), problems::toString);
        assertTrue(problems.getFirst().startsWith("made-up.yaml: Deployment/made-up, container node: dkv has no " +
            "subcommand 'memory-nod'"), problems.getFirst());
    }

    @Test
    void aWrappersDkvLineIsExecdAndUsesPlainVariablesOnly()
    {
        final List<String> problems = checkInline("wrapper.yaml", deployment("""
            command: [/bin/sh, -c]
            args:
              - |
                /dkv/dkv memory-node --node-id "$(hostname)" --meta "$META" --cluster-secret-file /etc/dkv/s
            """));
        assertEquals(2, problems.size(), problems::toString);
        assertTrue(problems.get(0).contains("without exec"), problems.get(0));
        assertTrue(problems.get(1).contains("$( hides what runs"), problems.get(1));
    }

    /** A Deployment "made-up" whose container "node" runs the image with these lines (command, args) and META set. */
    private static String deployment(final String containerLines)
    {
        final String indented = containerLines.lines().map(line -> "          " + line)
            .collect(Collectors.joining("\n"));
        return """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: made-up
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: dkv
                      env:
                        - name: META
                          value: meta:1@tcp:10.0.0.1:4791#00002001:00000000000000ab
            """ + indented + "\n";
    }

    @Test
    void everyServiceReachesAPortThePodsItSelectsOpen()
    {
        final List<String> problems = new ArrayList<>();
        for (final K8sObject service : DEPLOY.objects("Service"))
        {
            final Map<String, Object> selector = YamlNodes.map(service.spec().get("selector"));
            final List<K8sObject> selected = DEPLOY.workloads().stream()
                .filter(workload -> Objects.equals(workload.namespace(), service.namespace()))
                .filter(workload -> podLabels(workload).entrySet().containsAll(selector.entrySet()))
                .toList();
            if (selected.isEmpty())
            {
                problems.add(service.where() + ": its selector " + selector + " selects no workload's pods");
            }
            for (final Map<String, Object> port : YamlNodes.maps(service.spec().get("ports")))
            {
                final String target = YamlNodes.string(port.getOrDefault("targetPort", port.get("port")));
                for (final K8sObject workload : selected)
                {
                    final boolean open = containerPorts(workload).stream().anyMatch(containerPort ->
                        target.equals(YamlNodes.string(containerPort.get("name"))) ||
                            target.equals(YamlNodes.string(containerPort.get("containerPort"))));
                    if (!open)
                    {
                        problems.add(service.where() + ": targetPort " + target + " is no containerPort of " +
                            workload.where());
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void everyNameAnObjectGivesIsDefinedInTheManifests()
    {
        final List<String> problems = new ArrayList<>();
        for (final K8sObject object : DEPLOY.objects())
        {
            if (object.namespace() != null && DEPLOY.find("Namespace", null, object.namespace()).isEmpty())
            {
                problems.add(object.where() + ": namespace " + object.namespace() + " is not defined");
            }
        }
        for (final K8sObject workload : DEPLOY.workloads())
        {
            final Map<String, Object> podSpec = podSpec(workload);
            final Set<String> volumes = new TreeSet<>();
            for (final Map<String, Object> volume : YamlNodes.maps(podSpec.get("volumes")))
            {
                volumes.add(YamlNodes.string(volume.get("name")));
                final Map<String, Object> secret = YamlNodes.map(volume.get("secret"));
                final Map<String, Object> configMap = YamlNodes.map(volume.get("configMap"));
                final Map<String, Object> claim = YamlNodes.map(volume.get("persistentVolumeClaim"));
                if (!secret.isEmpty())
                {
                    requireKeys(workload, "Secret", YamlNodes.string(secret.get("secretName")), secret, problems);
                }
                if (!configMap.isEmpty())
                {
                    requireKeys(workload, "ConfigMap", YamlNodes.string(configMap.get("name")), configMap, problems);
                }
                if (!claim.isEmpty())
                {
                    require(workload, "PersistentVolumeClaim", YamlNodes.string(claim.get("claimName")), problems);
                }
            }
            for (final Map<String, Object> template : YamlNodes.maps(workload.spec().get("volumeClaimTemplates")))
            {
                volumes.add(YamlNodes.string(YamlNodes.map(template.get("metadata")).get("name")));
            }
            for (final Map<String, Object> container : allContainers(workload))
            {
                for (final Map<String, Object> mount : YamlNodes.maps(container.get("volumeMounts")))
                {
                    if (!volumes.contains(YamlNodes.string(mount.get("name"))))
                    {
                        problems.add(workload.where() + ": mounts volume " + mount.get("name") + ", which is " +
                            "neither a volume nor a volume claim template of it (" + volumes + ")");
                    }
                }
                for (final Map<String, Object> variable : YamlNodes.maps(container.get("env")))
                {
                    final Map<String, Object> from = YamlNodes.map(variable.get("valueFrom"));
                    Map.of("ConfigMap", "configMapKeyRef", "Secret", "secretKeyRef").forEach((kind, field) ->
                    {
                        final Map<String, Object> ref = YamlNodes.map(from.get(field));
                        if (!ref.isEmpty())
                        {
                            requireKeys(workload, kind, YamlNodes.string(ref.get("name")),
                                Map.of("items", List.of(Map.of("key", String.valueOf(ref.get("key"))))), problems);
                        }
                    });
                }
            }
            if (workload.kind().equals("StatefulSet"))
            {
                final String serviceName = YamlNodes.string(workload.spec().get("serviceName"));
                final boolean headless = DEPLOY.find("Service", workload.namespace(), String.valueOf(serviceName))
                    .map(service -> "None".equals(service.spec().get("clusterIP"))).orElse(false);
                if (!headless)
                {
                    problems.add(workload.where() + ": serviceName " + serviceName + " is no headless Service");
                }
            }
        }
        for (final K8sObject autoscaler : DEPLOY.objects("HorizontalPodAutoscaler"))
        {
            final Map<String, Object> target = YamlNodes.map(autoscaler.spec().get("scaleTargetRef"));
            require(autoscaler, YamlNodes.string(target.get("kind")), YamlNodes.string(target.get("name")), problems);
        }
        assertEquals(List.of(), problems);
    }

    private static void require(final K8sObject by, final String kind, final String name, final List<String> problems)
    {
        if (name == null || DEPLOY.find(kind, by.namespace(), name).isEmpty())
        {
            problems.add(by.where() + ": refers to " + kind + " " + name + ", which the manifests do not define");
        }
    }

    /** The object must exist and hold every key its {@code items} name. */
    private static void requireKeys(final K8sObject by, final String kind, final String name,
        final Map<String, Object> reference, final List<String> problems)
    {
        final K8sObject found = DEPLOY.find(kind, by.namespace(), String.valueOf(name)).orElse(null);
        if (found == null)
        {
            require(by, kind, name, problems);
            return;
        }
        final Set<String> keys = kind.equals("Secret") ? DkvInvocations.secretData(found).keySet() :
            YamlNodes.map(found.body().get("data")).keySet();
        for (final Map<String, Object> item : YamlNodes.maps(reference.get("items")))
        {
            if (!keys.contains(YamlNodes.string(item.get("key"))))
            {
                problems.add(by.where() + ": " + kind + " " + name + " has no key " + item.get("key"));
            }
        }
    }

    @Test
    void theAutoscalerScalesTheComputeNodesOnAMetricTheyServeAndOnCpu()
    {
        final List<K8sObject> autoscalers = DEPLOY.objects("HorizontalPodAutoscaler");
        assertEquals(1, autoscalers.size(), "one HorizontalPodAutoscaler");
        final K8sObject autoscaler = autoscalers.getFirst();
        assertEquals("autoscaling/v2", autoscaler.body().get("apiVersion"));
        final Map<String, Object> target = YamlNodes.map(autoscaler.spec().get("scaleTargetRef"));
        final Invocation computeNode = invocationOf(DkvInvocations.COMPUTE_NODE);
        assertEquals(List.of("Deployment", computeNode.owner().name()), List.of(target.get("kind"), target.get("name")),
            "the autoscaler scales the Deployment whose pods run dkv compute-node");
        assertFalse(computeNode.owner().spec().containsKey("replicas"),
            "the Deployment leaves its replicas to the autoscaler: a count of its own would reset it at every apply");

        final List<Map<String, Object>> metrics = YamlNodes.maps(autoscaler.spec().get("metrics"));
        final List<String> podsMetrics = metrics.stream().filter(metric -> "Pods".equals(metric.get("type")))
            .map(metric -> YamlNodes.string(YamlNodes.map(YamlNodes.map(metric.get("pods")).get("metric")).get("name")))
            .toList();
        assertEquals(List.of("dkv_compute_ops_per_second"), podsMetrics, "the metric ./dkv autoscale scales on");
        final String sources = computeNodeSources();
        for (final String metric : podsMetrics)
        {
            assertTrue(names(sources, metric),
                () -> autoscaler.where() + ": no source of kv-compute-node names the metric " + metric);
            assertTrue(adapterServes(metric), () -> "no prometheus-adapter rule under deploy/ serves " + metric);
        }

        final boolean cpu = metrics.stream().anyMatch(metric -> "Resource".equals(metric.get("type")) &&
            "cpu".equals(YamlNodes.map(metric.get("resource")).get("name")));
        assertTrue(cpu, "CPU utilization is the second metric");
        for (final Map<String, Object> container : containers(computeNode.owner()))
        {
            assertNotNull(YamlNodes.map(YamlNodes.map(container.get("resources")).get("requests")).get("cpu"),
                "CPU utilization is a share of the CPU requested: each compute container requests some");
        }

        final Map<String, Object> behavior = YamlNodes.map(autoscaler.spec().get("behavior"));
        assertEquals(0, YamlNodes.map(behavior.get("scaleUp")).get("stabilizationWindowSeconds"),
            "Kubernetes's default scale-up stabilization, spelled out");
        assertEquals(300, YamlNodes.map(behavior.get("scaleDown")).get("stabilizationWindowSeconds"),
            "Kubernetes's default scale-down stabilization, spelled out");
    }

    /** @return whether a prometheus-adapter rule (a values file's rules.custom) serves the series under its name. */
    private static boolean adapterServes(final String metric)
    {
        return DEPLOY.otherDocuments().values().stream().flatMap(List::stream)
            .flatMap(values -> YamlNodes.maps(YamlNodes.map(values.get("rules")).get("custom")).stream())
            .anyMatch(rule -> YamlNodes.string(rule.get("seriesQuery")).startsWith(metric + "{") &&
                metric.equals(YamlNodes.map(rule.get("name")).getOrDefault("as", metric)));
    }

    /** @return whether the text names the metric, not one whose name merely begins the same ({@code _total}). */
    private static boolean names(final String text, final String metric)
    {
        return Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(metric) + "(?![A-Za-z0-9_])").matcher(text).find();
    }

    private static String computeNodeSources()
    {
        try (Stream<Path> files = Files.walk(REPOSITORY.resolve("kv-compute-node/src/main/java")))
        {
            final StringBuilder all = new StringBuilder();
            for (final Path file : files.filter(path -> path.toString().endsWith(".java")).toList())
            {
                all.append(Files.readString(file)).append('\n');
            }
            return all.toString();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Test
    void prometheusScrapesEachComputeNodesMetricsPort()
    {
        final Invocation computeNode = invocationOf(DkvInvocations.COMPUTE_NODE);
        final Map<String, Object> annotations = YamlNodes.map(YamlNodes.map(
            DeployTree.podTemplate(computeNode.owner()).get("metadata")).get("annotations"));
        final String port = computeNode.option("--metrics-port");
        assertNotNull(port, "compute-node is given --metrics-port");
        assertEquals(Map.of("prometheus.io/scrape", "true", "prometheus.io/port", port, "prometheus.io/path",
            "/metrics"), annotations);
        assertTrue(containerPorts(computeNode.owner()).stream()
            .anyMatch(containerPort -> port.equals(YamlNodes.string(containerPort.get("containerPort")))),
            "the metrics port is a containerPort of the compute pods");
    }

    @Test
    void computeNodesAskForEverysecExplicitlyOverMemoryNodesThatKeepTheKeysOnDisk()
    {
        final Invocation computeNode = invocationOf(DkvInvocations.COMPUTE_NODE);
        // given, not left to the default: a memory node without its volume then fails the start, not the promise
        assertEquals(List.of("yes", "everysec"),
            Arrays.asList(computeNode.option("--appendonly"), computeNode.option("--appendfsync")),
            computeNode.where() + " runs appendonly yes with appendfsync everysec, as options");
        assertNotNull(invocationOf("memory-node").option("--data-dir"),
            "the memory nodes keep the keys on disk, which appendfsync everysec asks of them");
    }

    @Test
    void computeNodesHaveTimeToDrainBeforeTheyAreKilled()
    {
        final K8sObject deployment = invocationOf(DkvInvocations.COMPUTE_NODE).owner();
        final List<String> preStop = YamlNodes.strings(YamlNodes.map(YamlNodes.map(YamlNodes.map(
            containers(deployment).getFirst().get("lifecycle")).get("preStop")).get("exec")).get("command"));
        assertEquals("sleep", preStop.getFirst(), "the pod leaves the Service's endpoints before SIGTERM");
        final long sleep = Long.parseLong(preStop.get(1));
        final long drain = ComputeNodeConfiguration.DRAIN_TIMEOUT_DEFAULT / 1000;
        final long exit = 2;
        final Object grace = podSpec(deployment).get("terminationGracePeriodSeconds");
        assertTrue(grace instanceof Integer seconds && seconds > sleep + drain + exit, () -> "grace " + grace +
            " s must exceed the preStop sleep " + sleep + " s, the drain " + drain + " s and the exit " + exit + " s");
    }

    @Test
    void computeNodesStartOnceEveryMemoryNodeIsReady()
    {
        final K8sObject memoryNodes = invocationOf("memory-node").owner();
        final String service = YamlNodes.string(memoryNodes.spec().get("serviceName"));
        final K8sObject computeNodes = invocationOf(DkvInvocations.COMPUTE_NODE).owner();
        final List<Map<String, Object>> waits = YamlNodes.maps(podSpec(computeNodes).get("initContainers"));
        assertEquals(1, waits.size(), "one init container waits for the memory nodes");
        final Map<String, Object> wait = waits.getFirst();
        final Map<String, String> env = YamlNodes.maps(wait.get("env")).stream()
            .collect(Collectors.toMap(variable -> YamlNodes.string(variable.get("name")),
                variable -> YamlNodes.string(variable.get("value"))));
        assertEquals(YamlNodes.string(memoryNodes.spec().get("replicas")), env.get("MEMORY_NODES"),
            "compute nodes wait for as many memory nodes as " + memoryNodes.where() + " runs");
        assertTrue(String.join(" ", YamlNodes.strings(wait.get("command"))).contains(
            memoryNodes.name() + "-$i." + service + "/"), "they wait for the memory nodes' pod names");
        assertFalse(Boolean.TRUE.equals(DEPLOY.find("Service", memoryNodes.namespace(), service).orElseThrow().spec()
            .get("publishNotReadyAddresses")), "a memory node's pod name resolves once the pod is ready, not before");
    }

    @Test
    void theMetaServerNamesAsFoundersTheMemoryNodesTheStatefulSetStarts()
    {
        final Invocation meta = invocationOf("meta");
        final K8sObject memoryNodes = invocationOf("memory-node").owner();
        final int replicas = Integer.parseInt(YamlNodes.string(memoryNodes.spec().get("replicas")));
        final String script = String.join("\n", YamlNodes.strings(YamlNodes.maps(podSpec(memoryNodes)
            .get("containers")).getFirst().get("args")));
        final Matcher firstId = Pattern.compile("NODE_ID=\\$\\(\\((\\d+) \\+ \\$\\{POD_NAME##\\*-}\\)\\)")
            .matcher(script);
        assertTrue(firstId.find(), () -> memoryNodes.where() + ": no NODE_ID from the pod's ordinal in " + script);
        final long first = Long.parseLong(firstId.group(1));
        final String founders = LongStream.range(first, first + replicas).mapToObj(Long::toString)
            .collect(Collectors.joining(","));
        assertEquals(founders, meta.option("--founders"), "the memory nodes " + memoryNodes.where() +
            " starts found the store together: with none named the first alone would, and the others be refused");
    }

    @Test
    void theMetaEndpointTheNodesAreGivenIsTheOneTheMetaServerPrints() throws Exception
    {
        final Invocation meta = invocationOf("meta");
        final long nodeId = Long.parseLong(meta.option("--node-id"));
        final String address = meta.option("--address");
        final String port = address.substring(address.lastIndexOf(':') + 1);
        final Matcher dcKeyProperty = Pattern.compile("-D" + Pattern.quote(MetaServerConfiguration.DC_KEY_PROP_NAME) +
            "=(\\S+)").matcher(meta.env().getOrDefault("DKV_JAVA_OPTS", ""));
        assertTrue(dcKeyProperty.find(), "the MetaServer's DC key is fixed (DKV_JAVA_OPTS), as its endpoint says it");
        final long dcKey = Long.decode(dcKeyProperty.group(1));
        final String dnsName = meta.owner().name() + "-0." + meta.owner().spec().get("serviceName");

        final Path secret = dir.resolve("cluster-secret");
        ClusterSecret.generate(secret);
        final MetaServerContext context = new MetaServerContext().nodeId(nodeId).dcKey(dcKey)
            .dataDir(dir.resolve("meta")).clusterSecretFile(secret);
        context.raas().verbs().provider("tcp").tcpAddress("127.0.0.1:0");
        final MetaEndpoint printed;
        try (MetaServer server = MetaServer.start(context.conclude()))
        {
            printed = server.endpoint();
        }

        final List<Invocation> nodes = invocations().stream().filter(invocation -> invocation.option("--meta") != null)
            .toList();
        assertEquals(Set.of("memory-node", "compute-node"),
            nodes.stream().map(Invocation::subcommand).collect(Collectors.toSet()), "the nodes that are given --meta");
        for (final Invocation node : nodes)
        {
            final String given = node.option("--meta");
            final Matcher host = ENDPOINT_HOST.matcher(given);
            assertTrue(host.matches(), () -> node.where() + ": --meta " + given + " is no tcp MetaServer endpoint");
            assertTrue(host.group(1).equals(dnsName) || host.group(1).startsWith(dnsName + "."),
                () -> node.where() + ": --meta " + given + " does not name the MetaServer's pod, " + dnsName);
            assertEquals(port, host.group(2), () -> node.where() + ": --meta " + given + " is not the port of " +
                "the MetaServer's --address " + address);
            final String expected = printed.toString().replaceFirst("@tcp:[^#]+#", "@tcp:" + host.group(1) + ":" +
                port + "#");
            assertEquals(expected, given, () -> node.where() + ": --meta is not what the MetaServer prints, " +
                printed + ", at its pod's name and port");
        }
    }

    @Test
    void theClusterSecretIsMountedForItsOwnerAloneAndShippedAsAPlaceholderDkvRefuses() throws IOException
    {
        final List<String> problems = new ArrayList<>();
        for (final Invocation invocation : invocations())
        {
            final String file = invocation.option("--cluster-secret-file");
            final Map<String, Object> podSpec = podSpec(invocation.owner());
            final Map<String, Object> mount = containers(invocation.owner()).stream()
                .filter(container -> invocation.container().equals(container.get("name")))
                .flatMap(container -> YamlNodes.maps(container.get("volumeMounts")).stream())
                .filter(each -> file != null && file.startsWith(each.get("mountPath") + "/"))
                .findFirst().orElse(Map.of());
            final Map<String, Object> secret = YamlNodes.maps(podSpec.get("volumes")).stream()
                .filter(volume -> volume.get("name").equals(mount.get("name")))
                .map(volume -> YamlNodes.map(volume.get("secret"))).findFirst().orElse(Map.of());
            if (secret.isEmpty())
            {
                problems.add(invocation.where() + ": --cluster-secret-file " + file + " is on no Secret's volume");
                continue;
            }
            final Object mode = secret.get("defaultMode");
            if (!(mode instanceof Integer bits) || (bits & 077) != 0)
            {
                problems.add(invocation.where() + ": the secret's defaultMode " + (mode instanceof Integer given ?
                    String.format("0%o", given) : mode) + " is not 0400 or 0600; " +
                    "ClusterSecret refuses a file its group or others may read");
            }
            if (YamlNodes.map(podSpec.get("securityContext")).containsKey("fsGroup"))
            {
                problems.add(invocation.where() + ": an fsGroup makes the secret's file readable by the group");
            }
            for (final Map<String, Object> item : YamlNodes.maps(secret.get("items")))
            {
                if (item.containsKey("mode"))
                {
                    problems.add(invocation.where() + ": the secret's items set no mode of their own");
                }
            }
        }
        assertEquals(List.of(), problems);

        final K8sObject secret = DEPLOY.objects("Secret").getFirst();
        for (final String value : DkvInvocations.secretData(secret).values())
        {
            final Path file = Files.writeString(dir.resolve("placeholder"), value);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            assertThrows(IllegalArgumentException.class, () -> ClusterSecret.read(file),
                secret.where() + ": holds a secret dkv would take; this repository must ship a placeholder only");
        }
    }

    @Test
    void theImageIsBuiltByTheLauncherAndRunsIt() throws IOException
    {
        final Dockerfile dockerfile = DEPLOY.dockerfile();
        assertNotNull(dockerfile, "deploy/Dockerfile");
        for (final Dockerfile.Stage stage : dockerfile.stages())
        {
            assertTrue(stage.from().startsWith("eclipse-temurin:25-jdk"), () -> "stage from " + stage.from() +
                ": Temurin's JDK 25 (./dkv looks for javac)");
        }
        assertTrue(dockerfile.stages().stream().flatMap(stage -> stage.instructions().stream())
            .anyMatch(each -> each.instruction().equals("RUN") && each.arguments().startsWith("./dkv build")),
            "the image is built by ./dkv build, as on a developer's machine");
        final String root = dockerfile.repositoryRootInImage();
        assertNotNull(root, "the Dockerfile copies the repository (COPY . DEST)");
        final List<String> entrypoint = dockerfile.imageStage().last("ENTRYPOINT").execForm();
        assertNotNull(entrypoint, "ENTRYPOINT in exec form, so that the JVM is PID 1 and gets SIGTERM");
        assertTrue(entrypoint.getFirst().startsWith(root + "/"), () -> entrypoint + " is not in " + root);
        final Path launcher = REPOSITORY.resolve(entrypoint.getFirst().substring(root.length() + 1));
        assertTrue(Files.isExecutable(launcher), () -> launcher + " is the repository's executable launcher");
        assertTrue(Files.readString(launcher).contains("MAIN_CLASS=\"" + DkvMain.class.getName() + "\""),
            () -> launcher + " runs " + DkvMain.class.getName());
        assertEquals(root, dockerfile.imageWorkdir(), "the image works in the repository's directory, as ./dkv does");
    }

    @Test
    void kustomizeAppliesEveryManifest() throws IOException
    {
        final List<K8sObject> kustomizations = DEPLOY.objects("Kustomization");
        assertEquals(1, kustomizations.size(), "one kustomization.yaml");
        final K8sObject kustomization = kustomizations.getFirst();
        final Path base = REPOSITORY.resolve("deploy").resolve(kustomization.file()).getParent();
        final Set<String> listed = new TreeSet<>(YamlNodes.strings(kustomization.body().get("resources")));
        final Set<String> manifests = new TreeSet<>();
        for (final K8sObject object : DEPLOY.objects())
        {
            if (object != kustomization)
            {
                manifests.add(base.relativize(REPOSITORY.resolve("deploy").resolve(object.file())).toString());
            }
        }
        assertEquals(manifests, listed, kustomization.where() + ": resources are every file of objects, no other");
    }

    private static Map<String, Object> podSpec(final K8sObject workload)
    {
        return YamlNodes.map(DeployTree.podTemplate(workload).get("spec"));
    }

    private static List<Map<String, Object>> containers(final K8sObject workload)
    {
        return YamlNodes.maps(podSpec(workload).get("containers"));
    }

    /** @return its init containers and its containers. */
    private static List<Map<String, Object>> allContainers(final K8sObject workload)
    {
        return Stream.concat(YamlNodes.maps(podSpec(workload).get("initContainers")).stream(),
            containers(workload).stream()).toList();
    }

    private static Map<String, Object> podLabels(final K8sObject workload)
    {
        return YamlNodes.map(YamlNodes.map(DeployTree.podTemplate(workload).get("metadata")).get("labels"));
    }

    private static List<Map<String, Object>> containerPorts(final K8sObject workload)
    {
        return containers(workload).stream().flatMap(container -> YamlNodes.maps(container.get("ports")).stream())
            .toList();
    }
}
