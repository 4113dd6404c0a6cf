package io.dkv.compute.autoscale;

import io.dkv.process.RoleMains;
import io.dkv.process.RoleProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts each compute node as {@code java ... ComputeNodeCommand ARGS}, a JVM of its own started as every dkv role is
 * ({@link RoleProcess#launch}: this JVM's class path, the flags dkv's processes need, the trained AOT cache as
 * {@code ./dkv compute-node} has), its output in a log file of its own.
 */
public final class ProcessNodeLauncher implements NodeLauncher
{
    private static final Pattern READY = Pattern.compile(
        "dkv compute node (\\d+) serving RESP on \\S+:(\\d+) .*; metrics on http://\\S+:(\\d+)/metrics");

    private final List<String> exec;
    private final List<String> jvmOptions;
    private final List<String> arguments;
    private final String heap;
    private final Path logDir;

    /**
     * @param arguments the compute-node options every node gets (the autoscaler adds none).
     * @param heap      each node's -Xmx, e.g. "256m".
     * @param logDir    where each node's log goes, made if absent.
     */
    public ProcessNodeLauncher(final List<String> arguments, final String heap, final Path logDir)
    {
        this(List.of(), List.of(), arguments, heap, logDir);
    }

    /**
     * @param exec       a command that execs the JVM in its place (e.g. {@code ip netns exec HOST}), or empty.
     * @param jvmOptions options for each node's JVM after dkv's own, e.g. {@code -Dname=value}.
     * @param arguments  the compute-node options every node gets (the autoscaler adds none).
     * @param heap       each node's -Xmx, e.g. "256m".
     * @param logDir     where each node's log goes, made if absent.
     */
    public ProcessNodeLauncher(
        final List<String> exec,
        final List<String> jvmOptions,
        final List<String> arguments,
        final String heap,
        final Path logDir)
    {
        this.exec = List.copyOf(exec);
        this.jvmOptions = List.copyOf(jvmOptions);
        this.arguments = List.copyOf(arguments);
        this.heap = heap;
        this.logDir = logDir;
        try
        {
            Files.createDirectories(logDir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make the compute nodes' log directory " + logDir + ": " +
                ex.getMessage(), ex);
        }
    }

    public ManagedNode launch(final int ordinal)
    {
        return new ProcessNode(RoleProcess.launch("compute node " + ordinal, heap, jvmOptions, RoleMains.COMPUTE_NODE,
            arguments, logDir.resolve("compute-node-" + ordinal + ".log"), exec));
    }

    /** A node in a process of its own. */
    static final class ProcessNode implements ManagedNode
    {
        private final RoleProcess process;
        private State state = State.STARTING;
        private long nodeId;
        private int metricsPort = -1;

        ProcessNode(final RoleProcess process)
        {
            this.process = process;
        }

        public State poll()
        {
            if (state == State.STARTING)
            {
                final Matcher ready = process.pollReady(READY);
                if (ready != null)
                {
                    nodeId = Long.parseLong(ready.group(1));
                    metricsPort = Integer.parseInt(ready.group(3));
                    state = State.SERVING;
                }
            }
            if (state != State.EXITED && !process.isAlive())
            {
                state = State.EXITED;
            }
            return state;
        }

        public long nodeId()
        {
            return nodeId;
        }

        public int metricsPort()
        {
            return metricsPort;
        }

        public String describe()
        {
            return "compute node " + (nodeId == 0 ? "(starting)" : Long.toString(nodeId)) + " (pid " + process.pid() +
                ", log " + process.log() + ")";
        }

        public void drain()
        {
            if (state == State.STARTING || state == State.SERVING)
            {
                state = State.DRAINING;
                process.terminate();
            }
        }

        public void kill()
        {
            process.terminateForcibly();
        }

        public void pause()
        {
            process.signal("STOP");
        }

        public void resume()
        {
            process.signal("CONT");
        }

        public String exitReport()
        {
            return (process.isAlive() ? "still running" : "exit status " + process.exitStatus()) +
                "; its log ends:\n" + process.logTail();
        }
    }
}
