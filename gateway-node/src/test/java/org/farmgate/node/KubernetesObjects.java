package org.farmgate.node;

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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Kubernetes objects read into the API's own types (fabric8's model), strictly: a field the API does not have, or
 * a value of the wrong type, is found. The model keeps unknown fields aside instead of failing, so every object is
 * searched for them. For the manifests in k8s/ and the Helm chart's rendered output.
 */
final class KubernetesObjects {

    static final Map<String, Class<?>> KINDS = Map.of("Service", Service.class, "StatefulSet",
            StatefulSet.class, "Secret", Secret.class, "ConfigMap", ConfigMap.class, "NetworkPolicy",
            NetworkPolicy.class, "PodDisruptionBudget", PodDisruptionBudget.class);

    /** No coercion: "three" is no number of replicas, and "5701" no port. */
    static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS).build();

    private KubernetesObjects() {
    }

    static List<JsonNode> documents(String yaml) throws Exception {
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
    static List<String> leftOver(JsonNode document, Class<?> type) throws Exception {
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
