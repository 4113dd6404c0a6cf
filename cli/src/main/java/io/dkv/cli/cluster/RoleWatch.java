package io.dkv.cli.cluster;

import io.dkv.process.ParentWatch;
import io.dkv.process.RoleProcess;
import org.agrona.concurrent.EpochClock;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Watches the roles {@code dkv up} started, from its main thread between Ctrl-Cs: a role that dies is said, with its
 * pid and exit status and the command that starts it again for this cluster, and with {@code --restart} is started
 * again by {@code up} itself, with the arguments it first had, until it dies {@link RestartBudget#DEATHS} times
 * within {@link RestartBudget#WINDOW_MS}. It also repeats the lines a role's log gains where asked (the autoscaler's
 * syncs), so that {@code up}'s output says what the cluster does.
 */
final class RoleWatch
{
    private final PrintStream out;
    private final boolean restart;
    private final EpochClock clock;
    /** {@code up}'s list of what it stops on Ctrl-C: a role started again takes its place there. */
    private final List<RoleProcess> started;
    private final List<Watched> watched = new ArrayList<>();

    /**
     * @param out     where its lines go.
     * @param restart whether a role that dies is started again ({@code --restart}).
     * @param clock   what tells quick deaths apart.
     * @param started the roles {@code up} stops, in their order; one started again replaces the dead one there.
     */
    RoleWatch(final PrintStream out, final boolean restart, final EpochClock clock, final List<RoleProcess> started)
    {
        this.out = out;
        this.restart = restart;
        this.clock = clock;
        this.started = started;
    }

    /**
     * Watch a role.
     *
     * @param role      what to call it, e.g. "memory node 101".
     * @param process   its process, ready.
     * @param heap      its -Xmx.
     * @param arguments what it was started with, the role first, with the port it took where it was given 0, so that
     *                  it comes back where the cluster knows it.
     * @param readyLine what says it serves again.
     * @param logDir    where its logs go: a restart's log is named after its first with a count.
     * @param relay     whether the lines its log gains are repeated on {@code out}.
     */
    void watch(
        final String role,
        final RoleProcess process,
        final String heap,
        final List<String> arguments,
        final Pattern readyLine,
        final Path logDir,
        final boolean relay)
    {
        watched.add(new Watched(role, heap, List.copyOf(arguments), readyLine, logDir, process,
            relay ? LogRelay.fromEnd(process.log()) : null));
    }

    /** Look once at every role: repeat what the relayed logs gained, report and perhaps restart a dead one. */
    void poll()
    {
        for (int i = 0; i < watched.size(); i++)
        {
            final Watched role = watched.get(i);
            if (role.relay != null)
            {
                role.relay.newLines().forEach(out::println);
            }
            if (!role.process.isAlive())
            {
                if (!died(role))
                {
                    watched.remove(i--);
                }
            }
        }
        out.flush();
    }

    /** @return whether it runs again. */
    private boolean died(final Watched role)
    {
        final RoleProcess dead = role.process;
        out.println("dkv up: " + role.role + " (pid " + dead.pid() + ") exited with " + exitStatus(dead.exitStatus()) +
            "; its log: " + dead.log());
        out.println("dkv up: to start it again for this cluster (it then runs apart from up: stop it yourself):");
        out.println("  " + command(role.arguments));
        if (!restart)
        {
            out.println("dkv up: or run ./dkv up with --restart to have up restart a role that dies");
            return false;
        }
        while (true)
        {
            if (!role.budget.died(clock.time()))
            {
                out.println("dkv up: " + role.role + " died " + RestartBudget.DEATHS + " times within " +
                    RestartBudget.WINDOW_MS / 1_000 + " s: not restarting it again; see " + role.process.log());
                return false;
            }
            role.restarts++;
            final Path log = role.logDir.resolve(restartLogName(dead.log().getFileName().toString(), role.restarts));
            out.println("dkv up: restarting " + role.role + " (restart " + role.restarts + ", log " + log + ")");
            out.flush();
            try
            {
                final RoleProcess again = RoleProcess.start(role.role, role.heap, ParentWatch.thisJvm(),
                    role.arguments, role.readyLine, log);
                replace(role.process, again);
                role.process = again;
                if (role.relay != null)
                {
                    role.relay = new LogRelay(log, 0);
                }
                out.println("dkv up: " + role.role + " serves again as pid " + again.pid());
                if (role.role.equals("MetaServer") && !again.readyGroup(1).equals(dead.readyGroup(1)))
                {
                    out.println("dkv up: the MetaServer's endpoint is now " + again.readyGroup(1) + ", not " +
                        dead.readyGroup(1) + ", which the other roles and the cluster file name: stop the cluster " +
                        "(Ctrl-C) and start it again");
                }
                return true;
            }
            catch (final RuntimeException ex)
            {
                final String message = String.valueOf(ex.getMessage());
                out.println("dkv up: " + role.role + " did not start again: " + message.lines().findFirst()
                    .orElse(message));
            }
        }
    }

    private void replace(final RoleProcess dead, final RoleProcess again)
    {
        synchronized (started)
        {
            final int index = started.indexOf(dead);
            if (index >= 0)
            {
                started.set(index, again);
            }
            else
            {
                started.add(again);
            }
        }
    }

    /**
     * @param first   the role's first log's name, e.g. {@code compute-node-201.log}.
     * @param restart which restart, from 1.
     * @return the log of that restart, e.g. {@code compute-node-201.restart-1.log}: the dead one's stays as it was.
     */
    static String restartLogName(final String first, final int restart)
    {
        final String base = first.endsWith(".log") ? first.substring(0, first.length() - 4) : first;
        final int previous = base.lastIndexOf(".restart-");
        return (previous >= 0 ? base.substring(0, previous) : base) + ".restart-" + restart + ".log";
    }

    /**
     * @param status a process's exit status as Java gives it: 128 plus the signal's number for one a signal ended.
     * @return it as an operator reads it, e.g. "status 137 (SIGKILL)".
     */
    static String exitStatus(final int status)
    {
        final String signal = switch (status - 128)
        {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 6 -> "SIGABRT";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 15 -> "SIGTERM";
            default -> null;
        };
        return "status " + status + (signal == null ? "" : " (" + signal + ")");
    }

    /**
     * @param arguments a role's arguments, the role first.
     * @return the {@code ./dkv} command line that runs it, each word quoted for a POSIX shell where it needs to be.
     */
    static String command(final List<String> arguments)
    {
        final StringBuilder line = new StringBuilder("./dkv");
        for (final String argument : arguments)
        {
            line.append(' ');
            // '#' starts a comment only at a word's start: a MetaServer's endpoint holds one within
            if (argument.matches("[A-Za-z0-9_@%+=:,./-][A-Za-z0-9_@%+=:,./#-]*"))
            {
                line.append(argument);
            }
            else
            {
                line.append('\'').append(argument.replace("'", "'\\''")).append('\'');
            }
        }
        return line.toString();
    }

    /** A role, what starts it again, and its process now. */
    private static final class Watched
    {
        private final String role;
        private final String heap;
        private final List<String> arguments;
        private final Pattern readyLine;
        private final Path logDir;
        private final RestartBudget budget = new RestartBudget();
        private RoleProcess process;
        private LogRelay relay;
        private int restarts;

        Watched(
            final String role,
            final String heap,
            final List<String> arguments,
            final Pattern readyLine,
            final Path logDir,
            final RoleProcess process,
            final LogRelay relay)
        {
            this.role = role;
            this.heap = heap;
            this.arguments = arguments;
            this.readyLine = readyLine;
            this.logDir = logDir;
            this.process = process;
            this.relay = relay;
        }
    }
}
