package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.client.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RDP drive redirection: a session that asks for a drive gets a directory of the node's own under GW_DRIVE_ROOT,
 * named by the session's id (guacd creates it), and the node removes it with what it holds when the session ends,
 * however it ends. A caller never names the directory.
 */
class DriveTest {

    private static final String RDP_WITH_DRIVE = "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\","
            + "\"enable_drive\":true}";

    @TempDir
    Path root;

    @Test
    void aSessionsDriveIsTheNodesOwnAndGoesWithTheSession() throws Exception {
        try (TestNode node = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(),
                Map.of("GW_DRIVE_ROOT", root.toString()))) {
            SessionInfo session = node.createSession(TestNode.ADMIN, RDP_WITH_DRIVE);
            Path drive = root.resolve(session.sessionId());
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                Map<String, String> connect = node.guacd.lastSession().connectValues();
                assertEquals("true", connect.get("enable-drive"));
                assertEquals(drive.toString(), connect.get("drive-path"));
                assertEquals("true", connect.get("create-drive-path"), "guacd creates the directory");
                assertEquals("farmgate", connect.get("drive-name"));
                // What guacd and the remote desktop do with the drive: a directory, a file, a folder inside.
                Files.createDirectories(drive.resolve("Download"));
                Files.writeString(drive.resolve("Download").resolve("report.txt"), "from the desktop");
                Files.createSymbolicLink(drive.resolve("outside"), root.getParent());
            }
            node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            TestNode.await(() -> !Files.exists(drive), "the session's drive outlived it");
            assertTrue(Files.isDirectory(root.getParent()), "a link inside the drive was followed");

            SessionInfo deleted = node.createSession(TestNode.ADMIN, RDP_WITH_DRIVE);
            Files.createDirectories(root.resolve(deleted.sessionId()));
            assertEquals(204, node.request("DELETE", "/api/sessions/" + deleted.sessionId(), TestNode.ADMIN, null)
                    .statusCode());
            TestNode.await(() -> !Files.exists(root.resolve(deleted.sessionId())), "a deleted session's drive stays");
            node.assertNothingLeaks();
        }
    }

    @Test
    void aDriveIsRefusedWhereThereIsNoRootAndItsPathIsNeverTheCallers() throws Exception {
        try (TestNode node = TestNode.start()) {
            HttpResponse<String> refused = node.request("POST", "/api/sessions", TestNode.ADMIN, RDP_WITH_DRIVE);
            assertEquals(400, refused.statusCode(), refused::body);
            assertTrue(TestNode.json(refused).get("error").asText().contains("field 'enable_drive'"),
                    refused::body);
            for (String notAFlag : List.of("\"yes\"", "\"TRUE\"", "1", "\"\"")) {
                HttpResponse<String> flag = node.request("POST", "/api/sessions", TestNode.ADMIN,
                        "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"enable_drive\":" + notAFlag + "}");
                assertEquals(400, flag.statusCode(), flag::body);
                assertEquals("field 'enable_drive' must be true or false", TestNode.json(flag).get("error").asText());
            }
            assertEquals(201, node.request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"enable_drive\":false}").statusCode());
            HttpResponse<String> path = node.request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"drive_path\":\"/etc\"}");
            assertEquals(400, path.statusCode(), path::body);
            assertEquals(1, node.node.sessions().live().size(), "only the session that asked for no drive");
        }
    }
}
