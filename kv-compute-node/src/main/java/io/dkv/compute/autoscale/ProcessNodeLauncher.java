package io.dkv.compute.autoscale;

import io.dkv.compute.ComputeNodeCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts each compute node as {@code java ... ComputeNodeCommand ARGS}, a JVM of its own with this JVM's class path and
 * the flags dkv's processes need ({@link ChildJvm}: the trained AOT cache too, as {@code ./dkv compute-node} has), its
 * output in a log file of its own.
 */
public final class ProcessNodeLauncher implements NodeLauncher
{
    private static final Pattern READY = Pattern.compile(
        "dkv compute node (\\d+) serving RESP on \\S+:(\\d+) .*; metrics on http://\\S+:(\\d+)/metrics");
    private static final int LOG_TAIL_CHARS = 2048;

    private final List<String> prefix;
    private final List<String> arguments;
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
        this.arguments = List.copyOf(arguments);
        this.logDir = logDir;
        final List<String> command = new ArrayList<>(exec);
        command.addAll(ChildJvm.java());
        command.addAll(ChildJvm.computeNodeAotCache());
        command.add("-Xmx" + heap);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ComputeNodeCommand.class.getName());
        this.prefix = List.copyOf(command);
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

    /** @return the command line a node is started with, for messages. */
    public List<String> command()
    {
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(arguments);
        return command;
    }

    public ManagedNode launch(final int ordinal)
    {
        final Path log = logDir.resolve("compute-node-" + ordinal + ".log");
        try
        {
            final Process process = new ProcessBuilder(command()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
            return new ProcessNode(process, log);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start compute node " + ordinal + " (" + prefix.getFirst() + "): " +
                ex.getMessage(), ex);
        }
    }

    /** A node in a process of its own. */
    static final class ProcessNode implements ManagedNode
    {
        private final Process process;
        private final Path log;
        private State state = State.STARTING;
        private long nodeId;
        private int metricsPort = -1;

        ProcessNode(final Process process, final Path log)
        {
            this.process = process;
            this.log = log;
        }

        public State poll()
        {
            if (state == State.STARTING)
            {
                final Matcher ready = READY.matcher(read(log));
                if (ready.find())
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
                ", log " + log + ")";
        }

        public void drain()
        {
            if (state == State.STARTING || state == State.SERVING)
            {
                state = State.DRAINING;
                process.destroy();
            }
        }

        public void kill()
        {
            process.destroyForcibly();
        }

        public void pause()
        {
            signal("STOP");
        }

        public void resume()
        {
            signal("CONT");
        }

        private void signal(final String signal)
        {
            try
            {
                final int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start()
                    .waitFor();
                if (exit != 0 && process.isAlive())
                {
                    throw new IllegalStateException("kill -" + signal + " " + process.pid() + " exited with " + exit);
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot signal " + describe() + ": " + ex.getMessage(), ex);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while signalling " + describe(), ex);
            }
        }

        public String exitReport()
        {
            final String text = read(log);
            return (process.isAlive() ? "still running" : "exit status " + process.exitValue()) + "; its log ends:\n" +
                (text.length() <= LOG_TAIL_CHARS ? text : "..." + text.substring(text.length() - LOG_TAIL_CHARS));
        }

        private static String read(final Path log)
        {
            try
            {
                return Files.readString(log, StandardCharsets.UTF_8);
            }
            catch (final IOException ex)
            {
                return "";
            }
        }
    }
}
