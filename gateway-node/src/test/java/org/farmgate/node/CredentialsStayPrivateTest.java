package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A session's credentials reach the guacd that needs them and nothing else: no response, no cluster map, no log
 * line, even at DEBUG, even when the session is created on one node and runs on another.
 */
class CredentialsStayPrivateTest {

    private static final String PASSWORD = "pw-Sekr3t-5f1c";
    private static final String KEY = "-----BEGIN OPENSSH PRIVATE KEY-----key-9d2e";

    @Test
    void credentialsGoOnlyToGuacd() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        Level before = root.getLevel();
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        root.setLevel(Level.DEBUG);
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100",
                "GW_COST_SSH_MB", "10"))) {
            HttpResponse<String> created = cluster.node(1).request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"" + PASSWORD + "\","
                            + "\"private_key\":\"" + KEY + "\",\"passphrase\":\"" + PASSWORD + "\"}");
            assertEquals(201, created.statusCode(), created.body());
            assertFalse(created.body().contains(PASSWORD));
            SessionInfo session = org.farmgate.model.Json.mapper().readValue(created.body(), SessionInfo.class);
            assertEquals("node-2", session.nodeId(), "created on one node, run on another");
            try (WsClient ws = cluster.node(1).attach(session)) {
                ws.awaitInstruction("sync");
                SyntheticConnection guacd = cluster.node(2).guacd.lastSession();
                assertEquals(PASSWORD, guacd.connectValues().get("password"), "guacd got it");
                assertEquals(KEY, guacd.connectValues().get("private-key"));
                for (TestNode node : cluster.nodes) {
                    for (String path : List.of("/api/sessions?all=true", "/api/sessions/" + session.sessionId(),
                            "/api/cluster", "/metrics")) {
                        assertFalse(node.request("GET", path, TestNode.ADMIN, null).body().contains("Sekr3t"), path);
                    }
                    assertNothingInMaps(node);
                }
            }
        } finally {
            root.detachAppender(logs);
            root.setLevel(before);
        }
        assertTrue(logs.list.size() > 10, "the logs were captured");
        for (ILoggingEvent event : logs.list) {
            String line = event.getFormattedMessage() + (event.getThrowableProxy() == null ? ""
                    : event.getThrowableProxy().getMessage());
            assertFalse(line.contains("Sekr3t") || line.contains("key-9d2e"), "a credential in the log: " + line);
        }
    }

    private static void assertNothingInMaps(TestNode node) {
        HazelcastInstance hazelcast = node.node.runtime().hazelcast();
        for (DistributedObject object : hazelcast.getDistributedObjects()) {
            if (object instanceof IMap<?, ?> map) {
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    String text = entry.getKey() + "=" + entry.getValue();
                    assertFalse(text.contains("Sekr3t") || text.contains("key-9d2e"),
                            "a credential in cluster map " + map.getName());
                }
            }
        }
    }
}
