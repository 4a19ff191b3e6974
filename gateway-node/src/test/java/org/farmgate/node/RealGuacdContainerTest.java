package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The node against a real guacd 1.6.0 in a container. Runs where Docker is available and is skipped elsewhere
 * (these development machines have no Docker engine; the synthetic guacd follows the same transcripts).
 */
@Testcontainers(disabledWithoutDocker = true)
class RealGuacdContainerTest {

    @Container
    private static final GenericContainer<?> GUACD = new GenericContainer<>("guacamole/guacd:1.6.0")
            .withExposedPorts(4822);

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of(
                "GW_GUACD_HOST", GUACD.getHost(),
                "GW_GUACD_PORT", String.valueOf(GUACD.getMappedPort(4822))));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void handshakeSucceedsAndAClosedPortIsReportedAs515() throws Exception {
        // Inside the guacd container nothing listens on port 1 of its loopback.
        SessionInfo session = node.createSession(TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"port\":1,\"username\":\"nobody\",\"password\":\"x\"}");
        try (WsClient ws = node.attach(session)) {
            assertEquals(Instruction.of("", session.sessionId()).encode(), ws.nextMessage());
            assertEquals("515", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("515", ws.closeReason());
        }
    }

    @Test
    void aVncTargetThatIsNotThereIs519() throws Exception {
        SessionInfo session = node.createSession(TestNode.ADMIN,
                "{\"session_type\":\"vnc\",\"hostname\":\"127.0.0.1\",\"port\":1,\"password\":\"x\",\"autoretry\":1}");
        try (WsClient ws = node.attach(session)) {
            assertEquals("519", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
        }
    }
}
