package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Helm chart (deploy/helm/farmgate) through Helm itself (its Go library, from Maven Central): linted strictly,
 * rendered with its defaults and with everything turned on, every object read strictly into the Kubernetes API's
 * types, every setting it gives the node one the node reads, and the pod as k8s/farmgate.yaml has it (the guacd
 * sidecar's limit as the budget, one process namespace, guacd outliving the drain).
 */
class HelmChartTest {

    private static final Path CHART = Path.of("..", "deploy", "helm", "farmgate");
    private static final Set<String> CUSTOM = Set.of("Certificate");

    static Stream<Arguments> valueSets() {
        return Stream.of(
                Arguments.of("defaults", Map.of()),
                Arguments.of("everything on", Map.ofEntries(
                        Map.entry("oidc.enabled", "true"), Map.entry("oidc.issuer", "https://id.example/realms/x"),
                        Map.entry("oidc.redirectBase", "https://gate.example"),
                        Map.entry("oidc.roleMappings", "farm-admins=admin"),
                        Map.entry("database.url", "postgresql://db:5432/farmgate?sslmode=verify-full"),
                        Map.entry("vault.address", "https://vault.example:8200"),
                        Map.entry("persistence.enabled", "true"), Map.entry("persistence.storageClassName", "fast"),
                        Map.entry("certManager.enabled", "true"), Map.entry("node.extraEnv.GW_AUDIT_REQUIRED", "true"),
                        Map.entry("replicas", "5"), Map.entry("service.type", "LoadBalancer"),
                        Map.entry("recording.mode", "all"), Map.entry("recording.keys", "true"),
                        Map.entry("recording.s3.bucket", "recordings"),
                        Map.entry("recording.s3.endpoint", "https://minio.example:9000"),
                        Map.entry("recording.s3.credentialsSecret", "farmgate-s3"))),
                Arguments.of("no network policy", Map.of("networkPolicy.enabled", "false")));
    }

    @Test
    void theChartLintsStrictly() {
        LintResult lint = new Helm(CHART).lint().strict().call();
        assertFalse(lint.isFailed(), () -> String.join("\n", lint.getMessages()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valueSets")
    void everyRenderedObjectIsOneTheApiTakesAndThePodIsRight(String name, Map<String, String> values)
            throws Exception {
        List<JsonNode> objects = render(values);
        Set<String> kinds = new TreeSet<>();
        StatefulSet statefulSet = null;
        for (JsonNode object : objects) {
            String kind = object.path("kind").asText();
            kinds.add(kind);
            if (CUSTOM.contains(kind)) {
                continue;
            }
            assertTrue(KubernetesObjects.KINDS.containsKey(kind), "kind '" + kind + "' is none this test knows");
            assertEquals(List.of(), KubernetesObjects.leftOver(object, KubernetesObjects.KINDS.get(kind)), kind);
            if (kind.equals("StatefulSet")) {
                statefulSet = KubernetesObjects.STRICT.treeToValue(object, StatefulSet.class);
            }
        }
        assertTrue(kinds.containsAll(Set.of("Service", "StatefulSet", "PodDisruptionBudget")), kinds::toString);
        assertEquals(!values.containsKey("networkPolicy.enabled"), kinds.contains("NetworkPolicy"));
        assertEquals(values.containsKey("certManager.enabled"), kinds.contains("Certificate"));

        var pod = statefulSet.getSpec().getTemplate().getSpec();
        assertTrue(pod.getShareProcessNamespace(), "the node cannot see guacd's processes");
        Container node = pod.getContainers().stream().filter(c -> c.getName().equals("node")).findFirst()
                .orElseThrow();
        Container guacd = pod.getContainers().stream().filter(c -> c.getName().equals("guacd")).findFirst()
                .orElseThrow();
        EnvVar budget = env(node, "GW_GUACD_MEMORY_LIMIT_MB");
        assertEquals("guacd", budget.getValueFrom().getResourceFieldRef().getContainerName());
        assertEquals("limits.memory", budget.getValueFrom().getResourceFieldRef().getResource());
        assertTrue(guacd.getLifecycle().getPreStop().getExec().getCommand().toString().contains("farmgate-nod[e]"),
                "guacd would die with the node's drain");
        assertEquals(330L, pod.getTerminationGracePeriodSeconds());
        assertEquals(1000L, node.getSecurityContext().getRunAsUser(), "the node must run as guacd's user");
        assertEquals("farmgate-cluster.farm.svc.cluster.local", env(node, "GW_CLUSTER_K8S_SERVICE_DNS").getValue());
        Set<String> unknown = new TreeSet<>();
        Set<String> read = settingsTheNodeReads();
        for (EnvVar variable : node.getEnv()) {
            if ((variable.getName().startsWith("GW_") || variable.getName().startsWith("VAULT_"))
                    && read.stream().noneMatch(setting -> setting.endsWith("_") ? variable.getName()
                            .startsWith(setting) : setting.equals(variable.getName()))) {
                unknown.add(variable.getName());
            }
        }
        assertEquals(Set.of(), unknown, "settings the node does not read");
        if (values.containsKey("persistence.enabled")) {
            assertEquals("fast", statefulSet.getSpec().getVolumeClaimTemplates().get(0).getSpec()
                    .getStorageClassName());
            assertEquals(5, statefulSet.getSpec().getReplicas());
            assertEquals("farmgate-db", pod.getVolumes().stream().filter(v -> v.getName().equals("db-password"))
                    .findFirst().orElseThrow().getSecret().getSecretName());
        }
    }

    /** What k8s/farmgate.yaml gives the node, the chart's defaults give too: the two do not drift apart. */
    @Test
    void theDefaultsGiveTheNodeWhatTheManifestDoes() throws Exception {
        StatefulSet chart = null;
        for (JsonNode object : render(Map.of())) {
            if (object.path("kind").asText().equals("StatefulSet")) {
                chart = KubernetesObjects.STRICT.treeToValue(object, StatefulSet.class);
            }
        }
        StatefulSet manifest = null;
        for (JsonNode object : KubernetesObjects.documents(Files.readString(Path.of("..", "k8s", "farmgate.yaml")))) {
            if (object.path("kind").asText().equals("StatefulSet")) {
                manifest = KubernetesObjects.STRICT.treeToValue(object, StatefulSet.class);
            }
        }
        Set<String> fromManifest = names(manifest);
        fromManifest.remove("POD_NAMESPACE"); // the chart knows its namespace when it renders
        Set<String> missing = new TreeSet<>(fromManifest);
        missing.removeAll(names(chart));
        assertEquals(Set.of(), missing, "settings k8s/farmgate.yaml gives the node and the chart does not");
    }

    @Test
    void signInWithoutItsIssuerIsRefusedWithTheReason() {
        Exception refused = assertThrows(Exception.class, () -> render(Map.of("oidc.enabled", "true")));
        assertTrue(refused.getMessage().contains("oidc.enabled needs oidc.issuer and oidc.redirectBase"),
                refused::getMessage);
    }

    private static Set<String> names(StatefulSet statefulSet) {
        Set<String> out = new TreeSet<>();
        statefulSet.getSpec().getTemplate().getSpec().getContainers().stream().filter(c -> c.getName()
                .equals("node")).findFirst().orElseThrow().getEnv().forEach(v -> out.add(v.getName()));
        return out;
    }

    private static EnvVar env(Container container, String name) {
        return container.getEnv().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in the node's environment"));
    }

    private static List<JsonNode> render(Map<String, String> values) throws Exception {
        TemplateCommand template = new Helm(CHART).template().withName("farmgate").withNamespace("farm");
        values.forEach(template::set);
        return KubernetesObjects.documents(template.call());
    }

    /** The settings the node's code names: {@code "GW_…"} and {@code "VAULT_…"} literals; one ending in _ a prefix. */
    private static Set<String> settingsTheNodeReads() throws IOException {
        Set<String> out = new HashSet<>();
        Pattern literal = Pattern.compile("\"((?:GW|VAULT)_[A-Z0-9_]+)\"");
        List<Path> sources = new ArrayList<>();
        for (String module : List.of("gateway-node", "session-router", "durable-store")) {
            try (Stream<Path> files = Files.walk(Path.of("..", module, "src", "main", "java"))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(sources::add);
            }
        }
        for (Path source : sources) {
            Matcher found = literal.matcher(Files.readString(source));
            while (found.find()) {
                out.add(found.group(1));
            }
        }
        return out;
    }
}
