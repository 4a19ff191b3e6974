package org.farmgate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering every module keeps: the model and the wire codec know nothing of the router or the node, the router
 * nothing of the node, and inside the node only the composition root reaches the edges (HTTP API, WebSocket
 * tunnel); no package depends on itself through others. Production classes only: tests may reach anywhere.
 */
class LayeringTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.farmgate");
    }

    @Test
    void noPackageCycles() {
        slices().matching("org.farmgate.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theModelKnowsNoRouterNodeOrFrameworks() {
        noClasses().that().resideInAnyPackage("org.farmgate.model..", "org.farmgate.protocol..", "org.farmgate.error..")
                .should().dependOnClassesThat().resideInAnyPackage("org.farmgate.router..", "org.farmgate.node..",
                        "io.vertx..", "com.hazelcast..")
                .check(classes);
    }

    @Test
    void theRouterKnowsNoNodeAndNoVertx() {
        noClasses().that().resideInAPackage("org.farmgate.router..")
                .should().dependOnClassesThat().resideInAnyPackage("org.farmgate.node..", "io.vertx..")
                .check(classes);
    }

    @Test
    void onlyTheCompositionRootReachesTheEdges() {
        noClasses().that().resideInAPackage("org.farmgate.node..")
                .and().resideOutsideOfPackages("org.farmgate.node", "org.farmgate.node.api")
                .should().dependOnClassesThat().resideInAPackage("org.farmgate.node.api..")
                .check(classes);
        noClasses().that().resideInAPackage("org.farmgate.node..")
                .and().resideOutsideOfPackages("org.farmgate.node", "org.farmgate.node.tunnel")
                .should().dependOnClassesThat().resideInAPackage("org.farmgate.node.tunnel..")
                .check(classes);
    }

    @Test
    void nothingDependsOnTheCompositionRoot() {
        noClasses().that().resideInAPackage("org.farmgate.node..").and().resideOutsideOfPackage("org.farmgate.node")
                .should().dependOnClassesThat().resideInAPackage("org.farmgate.node")
                .check(classes);
    }

    /**
     * Only the durable store reaches the database, and it knows nothing of the node, Vert.x or Hazelcast: the rest
     * of the node records facts and runs the store's own operations through {@code DurableStore}.
     */
    @Test
    void onlyTheDurableStoreReachesTheDatabase() {
        noClasses().that().resideOutsideOfPackages("org.farmgate.durable..", "org.farmgate.testkit..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..", "com.zaxxer..",
                        "org.flywaydb..", "org.h2..", "org.postgresql..")
                .check(classes);
        noClasses().that().resideInAPackage("org.farmgate.durable..")
                .should().dependOnClassesThat().resideInAnyPackage("org.farmgate.node..", "org.farmgate.router..",
                        "io.vertx..", "io.netty..", "com.hazelcast..")
                .check(classes);
    }

    @Test
    void theDomainSpeaksNoHttp() {
        noClasses().that().resideInAnyPackage("org.farmgate.node.session..", "org.farmgate.node.cluster..",
                        "org.farmgate.node.peer..", "org.farmgate.node.guacd..", "org.farmgate.node.addressbook..",
                        "org.farmgate.node.accountability..", "org.farmgate.router..")
                .should().dependOnClassesThat().resideInAnyPackage("org.farmgate.node.http..", "io.vertx.ext.web..")
                .check(classes);
    }
}
