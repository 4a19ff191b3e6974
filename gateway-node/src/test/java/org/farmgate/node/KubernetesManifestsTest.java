package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The manifests in k8s/ read into the Kubernetes API's own types (fabric8's model), strictly: a field the API does
 * not have (a misspelling the API server would drop or refuse) or a value of the wrong type fails the build. The
 * model keeps unknown fields aside instead of failing, so every object is searched for them. Kinds of custom resources
 * (cert-manager's, k6-operator's) have no model here and are listed, so that a core kind misspelled is not skipped.
 */
class KubernetesManifestsTest {

    private static final Path K8S = Path.of("..", "k8s");
    private static final Set<String> CUSTOM = Set.of("Certificate", "Issuer", "TestRun");

    @Test
    void everyManifestReadsIntoTheApisTypesWithNothingLeftOver() throws Exception {
        Set<String> custom = new TreeSet<>();
        int checked = 0;
        try (var files = Files.list(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode document : KubernetesObjects.documents(Files.readString(file))) {
                    String kind = document.path("kind").asText();
                    if (CUSTOM.contains(kind)) {
                        custom.add(kind);
                        continue;
                    }
                    assertTrue(KubernetesObjects.KINDS.containsKey(kind), file + ": kind '" + kind + "' is none this test knows");
                    assertEquals(List.of(), KubernetesObjects.leftOver(document, KubernetesObjects.KINDS.get(kind)), file + ": " + kind + " "
                            + document.path("metadata").path("name").asText());
                    checked++;
                }
            }
        }
        assertTrue(checked >= 6, "documents checked: " + checked);
        assertEquals(CUSTOM, custom);
    }

    @Test
    void aMisspelledFieldOrAWrongTypeIsCaught() throws Exception {
        JsonNode misspelled = KubernetesObjects.documents("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: x}
                spec:
                  replica: 3
                  template:
                    spec:
                      containers:
                        - name: node
                          imagePullPolcy: Always
                """).get(0);
        assertEquals(Set.of("spec: [replica]", "spec.template.spec.containers[0]: [imagePullPolcy]"),
                Set.copyOf(KubernetesObjects.leftOver(misspelled, StatefulSet.class)));
        JsonNode wrongType = KubernetesObjects.documents("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: x}
                spec: {replicas: "three"}
                """).get(0);
        assertThrows(Exception.class, () -> KubernetesObjects.leftOver(wrongType, StatefulSet.class));
    }
}
