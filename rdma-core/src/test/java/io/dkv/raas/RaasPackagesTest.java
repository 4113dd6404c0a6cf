package io.dkv.raas;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The API package is a leaf: applications program against {@code io.dkv.raas}, and each implementation (embedded
 * driver, attached client, LITE's join, byte streams) builds on it, never the other way round.
 */
class RaasPackagesTest
{
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses()
    {
        classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.dkv.raas");
    }

    @Test
    void theApiPackageNamesNoImplementation()
    {
        noClasses().that().resideInAPackage("io.dkv.raas")
            .should().dependOnClassesThat().resideInAPackage("io.dkv.raas.*..")
            .check(classes);
    }

    @Test
    void noPackageOfRaasIsInACircle()
    {
        slices().matching("io.dkv.(raas).(*)..").namingSlices("$2")
            .should().beFreeOfCycles()
            .check(classes);
    }
}
