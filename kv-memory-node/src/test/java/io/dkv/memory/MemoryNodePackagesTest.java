package io.dkv.memory;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The node serves memory whose format {@code kv-format} describes and runs no client: only its command, which
 * joins or drains the node by copying keys, uses the client library.
 */
class MemoryNodePackagesTest
{
    @Test
    void theNodeReadsTheFormatAndNotTheClient()
    {
        final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.dkv.memory");
        noClasses().that().resideInAPackage("io.dkv.memory")
            .should().dependOnClassesThat().resideInAPackage("io.dkv.client..")
            .check(classes);
    }
}
