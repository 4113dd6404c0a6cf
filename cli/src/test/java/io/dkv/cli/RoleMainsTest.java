package io.dkv.cli;

import io.dkv.process.RoleMains;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every role the launcher starts by its own main is a {@code ./dkv} subcommand of that name, run by a class that
 * exists here (the launcher names them by class name, below the modules that hold them) and has a main.
 */
class RoleMainsTest
{
    static Stream<String> roles()
    {
        return Arrays.stream(RoleMains.ROLES);
    }

    @ParameterizedTest
    @MethodSource("roles")
    void eachRoleIsASubcommandWhoseClassHasAMain(final String role) throws Exception
    {
        final Class<?> main = Class.forName(RoleMains.mainClass(role));
        final Method method = main.getMethod("main", String[].class);
        assertTrue(Modifier.isStatic(method.getModifiers()), main + ".main is not static");

        final CommandLine subcommand = DkvMain.commandLine().getSubcommands().get(role);
        assertNotNull(subcommand, "./dkv has no subcommand " + role);
        assertEquals(main, subcommand.getCommand().getClass(), "./dkv " + role + " runs another class");
    }
}
