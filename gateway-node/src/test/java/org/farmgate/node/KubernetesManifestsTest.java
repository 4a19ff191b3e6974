package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
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
    private static final Map<String, Class<?>> KINDS = Map.of("Service", Service.class, "StatefulSet",
            StatefulSet.class, "Secret", Secret.class, "ConfigMap", ConfigMap.class, "NetworkPolicy",
            NetworkPolicy.class, "PodDisruptionBudget", PodDisruptionBudget.class);
    private static final Set<String> CUSTOM = Set.of("Certificate", "Issuer", "TestRun");

    /** No coercion: "three" is no number of replicas, and "5701" no port. */
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS).build();

    @Test
    void everyManifestReadsIntoTheApisTypesWithNothingLeftOver() throws Exception {
        Set<String> custom = new TreeSet<>();
        int checked = 0;
        try (var files = Files.list(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (JsonNode document : documents(Files.readString(file))) {
                    String kind = document.path("kind").asText();
                    if (CUSTOM.contains(kind)) {
                        custom.add(kind);
                        continue;
                    }
                    assertTrue(KINDS.containsKey(kind), file + ": kind '" + kind + "' is none this test knows");
                    assertEquals(List.of(), leftOver(document, KINDS.get(kind)), file + ": " + kind + " "
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
        JsonNode misspelled = documents("""
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
                Set.copyOf(leftOver(misspelled, StatefulSet.class)));
        JsonNode wrongType = documents("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: x}
                spec: {replicas: "three"}
                """).get(0);
        assertThrows(Exception.class, () -> leftOver(wrongType, StatefulSet.class));
    }

    private static List<JsonNode> documents(String yaml) throws Exception {
        List<JsonNode> documents = new ArrayList<>();
        ObjectMapper reader = new ObjectMapper(new YAMLFactory());
        try (var parser = reader.getFactory().createParser(yaml)) {
            var all = reader.readValues(parser, JsonNode.class);
            while (all.hasNext()) {
                JsonNode document = all.next();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            }
        }
        return documents;
    }

    /** Every field the API's type did not take, by where it was. */
    private static List<String> leftOver(JsonNode document, Class<?> type) throws Exception {
        List<String> found = new ArrayList<>();
        collect(STRICT.treeToValue(document, type), "", found);
        return found;
    }

    private static void collect(Object value, String path, List<String> found) throws Exception {
        if (value == null) {
            return;
        }
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                collect(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (value instanceof Map<?, ?> entries) {
            for (Map.Entry<?, ?> entry : entries.entrySet()) {
                collect(entry.getValue(), path + "." + entry.getKey(), found);
            }
            return;
        }
        if (!value.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object field = getter.invoke(value);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add((path.isEmpty() ? "" : path.substring(1)) + ": " + new TreeSet<>(extra.keySet()));
                }
                continue;
            }
            String name = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
            collect(field, path + "." + name, found);
        }
    }
}
