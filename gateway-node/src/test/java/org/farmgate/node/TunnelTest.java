package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.MultiMap;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.GuacdArguments;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The WebSocket tunnel end to end: a real WebSocket client, the node, and a guacd that behaves as the real one. */
class TunnelTest {

    private TestNode node;

    @AfterEach
    void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void attachRunsTheHandshakeAndRelaysWholeInstructionsBothWays() throws Exception {
        node = TestNode.start();
        String password = "pässwörd-中文-😀";
        SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"ssh\",\"hostname\":\"localhost\","
                + "\"port\":2222,\"username\":\"bench\",\"password\":\"" + password + "\",\"width\":1280,"
                + "\"height\":800,\"font_size\":14}");
        assertEquals(0, node.guacd.sessions().size(), "no guacd connection before a WebSocket attaches");

        try (WsClient ws = node.attach(session, "GUAC_TIMEZONE=Europe/Berlin&GUAC_AUDIO=audio/L16")) {
            assertEquals("guacamole", ws.socket().subProtocol());
            assertEquals(Instruction.of("", session.sessionId()).encode(), ws.nextMessage(),
                    "the first message names the tunnel");
            Instruction sync = ws.awaitInstruction("sync");
            assertNotNull(sync);

            SyntheticConnection guacd = node.guacd.lastSession();
            assertEquals(Protocol.SSH, guacd.protocol());
            assertEquals(GuacdArguments.VERSION_1_5_0, guacd.connectVersion());
            Map<String, String> values = guacd.connectValues();
            assertEquals("127.0.0.1", values.get("hostname"), "guacd gets the address that passed the allow-list");
            assertEquals("2222", values.get("port"));
            assertEquals("bench", values.get("username"));
            assertEquals(password, values.get("password"), "code-point lengths keep non-ASCII passwords intact");
            assertEquals("14", values.get("font-size"));
            assertEquals("Europe/Berlin", values.get("timezone"));
            assertEquals("", values.get("private-key"), "unset arguments are sent empty");
            assertEquals(List.of("1280", "800", "96"), guacd.handshake().get("size"));
            assertEquals(List.of("Europe/Berlin"), guacd.handshake().get("timezone"));
            assertEquals(List.of("admin"), guacd.handshake().get("name"));
            assertEquals(List.of("audio/L16"), guacd.handshake().get("audio"));

            assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
            assertEquals(1, node.session(session.sessionId()).activeConnections());

            ws.send("4.sync," + sync.arg(0).length() + "." + sync.arg(0) + ";");
            ws.send("3.key,5.65307,1.1;3.key,5.65307,1.0;");
            TestNode.await(() -> guacd.received().size() >= 3, "guacd did not get the client's instructions");
            assertEquals(List.of(Instruction.of("sync", sync.arg(0)), Instruction.of("key", "65307", "1"),
                    Instruction.of("key", "65307", "0")), guacd.received());
            assertTrue(ws.drain().stream().noneMatch(i -> i.opcode().equals("ready")), "ready is the node's");
            assertEquals(List.of(), ws.violations());
        }
        node.assertNothingLeaks();
        assertEquals(SessionStatus.COMPLETED, node.session(session.sessionId()).status());
    }

    @Test
    void pingIsEchoedAndInternalInstructionsNeverReachGuacd() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            SyntheticConnection guacd = node.guacd.lastSession();
            String ping = "0.,4.ping,13.1700000000000;";
            ws.send("3.nop;" + ping + "0.,5.other;3.key,2.65,1.1;");
            assertEquals(Instruction.of("", "ping", "1700000000000"), ws.awaitInstruction(""));
            // The same, cut across WebSocket frames and inside elements.
            ws.sendFragmented("0.,4.pi", "ng,13.17000", "00000001;3.k", "ey,2.65,1.0;");
            assertEquals(Instruction.of("", "ping", "1700000000001"), ws.awaitInstruction(""));
            TestNode.await(() -> guacd.received().size() >= 3, "guacd did not get the key presses");
            assertEquals(List.of(Instruction.of("nop"), Instruction.of("key", "65", "1"),
                    Instruction.of("key", "65", "0")), guacd.received());
        }
        node.assertNothingLeaks();
    }

    @Test
    void framesHoldWholeInstructionsWhenGuacdWritesInTinyPieces() throws Exception {
        List<Instruction> extra = List.of(Instruction.of("name", "Ünïcödé 中文 😀"),
                Instruction.of("argv", "2", "text/plain", "ŝĉĥ"), Instruction.of("end", "2"));
        node = TestNode.start(new SyntheticGuacdOptions().writeChunkBytes(3).afterReady(extra), Map.of());
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            assertEquals(Instruction.of("name", "Ünïcödé 中文 😀"), ws.awaitInstruction("name"));
            assertEquals(Instruction.of("argv", "2", "text/plain", "ŝĉĥ"), ws.awaitInstruction("argv"));
            assertEquals(List.of(), ws.violations(), "every message must hold whole instructions");
        }
        node.assertNothingLeaks();
    }

    @Test
    void aWrongPasswordReachesTheClientAsGuacdsErrorAndCloseReason() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().authFailureDelay(Duration.ofMillis(200)), Map.of());
        SessionInfo session = node.createSession(TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"wrong\"}");
        try (WsClient ws = node.attach(session)) {
            assertEquals(Instruction.of("error", "Aborted. See logs.", "769"), ws.awaitInstruction("error"));
            ws.awaitClose();
            assertEquals("769", ws.closeReason(), "guacamole-common-js reads the status from the close reason");
            assertEquals((short) 1008, ws.closeCode());
        }
        node.assertNothingLeaks();
        SessionInfo ended = node.session(session.sessionId());
        assertEquals(SessionStatus.ERROR, ended.status());
        assertTrue(ended.endReason().contains("769"), ended.endReason());
    }

    @ParameterizedTest(name = "{0} to a closed port: {1}")
    @CsvSource({"ssh, 515, 1011", "vnc, 519, 1011", "rdp, 519, 1011"})
    void aClosedTargetPortIsReportedAsGuacdReportsIt(String protocol, String status, short closeCode)
            throws Exception {
        node = TestNode.start();
        SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"" + protocol
                + "\",\"hostname\":\"127.0.0.1\",\"port\":9,\"password\":\"x\"}");
        try (WsClient ws = node.attach(session)) {
            assertEquals(status, ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals(status, ws.closeReason());
            assertEquals(closeCode, ws.closeCode());
        }
        // guacd leaves its socket open after reporting the target: the node must close it.
        node.assertNothingLeaks();
        assertEquals(SessionStatus.ERROR, node.session(session.sessionId()).status());
    }

    @Test
    void aProtocolGuacdDoesNotHaveTimesOutWithUpstreamTimeout() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().installed(EnumSet.of(Protocol.SSH)),
                Map.of("GW_GUACD_STEP_TIMEOUT_MS", "300"));
        SessionInfo session = node.createSession(TestNode.ADMIN,
                "{\"session_type\":\"vnc\",\"hostname\":\"127.0.0.1\",\"password\":\"x\"}");
        try (WsClient ws = node.attach(session)) {
            Instruction error = ws.awaitInstruction("error");
            assertEquals("514", error.arg(1));
            assertTrue(error.arg(0).contains("'args'"), error.arg(0));
            ws.awaitClose();
            assertEquals("514", ws.closeReason());
        }
        node.assertNothingLeaks();
        assertEquals(SessionStatus.ERROR, node.session(session.sessionId()).status());
    }

    @Test
    void guacdDownMakesTheNodeUnhealthyAndAnAttachUpstreamUnavailable() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_GUACD_PROBE_MS", "200"));
        SessionInfo session = node.sshSession();
        node.guacd.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
        try (WsClient ws = node.attach(session)) {
            assertEquals("520", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("520", ws.closeReason());
        }
        node.assertNothingLeaks();
        TestNode.await(() -> {
            try {
                return node.request("POST", "/api/sessions", TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\"}")
                        .statusCode() == 503;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "a node whose guacd does not answer still takes sessions");
        java.net.http.HttpResponse<String> refused = node.request("POST", "/api/sessions", TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\"}");
        assertEquals("no capacity", TestNode.json(refused).get("error").asText());
        assertTrue(TestNode.json(refused).get("reason").asText().contains("unhealthy"), refused.body());
        assertEquals("10", refused.headers().firstValue("Retry-After").orElse(""));
        java.net.http.HttpResponse<String> ready = node.request("GET", "/api/ready", null, null);
        assertEquals(503, ready.statusCode());
        assertFalse(TestNode.json(ready).get("checks").get("guacd").get("ok").asBoolean());
    }

    @Test
    void aSilentClientIsDroppedByGuacdWithClientTimeout() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().idleTimeout(Duration.ofMillis(300)), Map.of());
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            assertEquals("776", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("776", ws.closeReason());
        }
        node.assertNothingLeaks();
    }

    @Test
    void aSecondWebSocketIsRefusedWhileTheFirstIsAttached() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient first = node.attach(session)) {
            first.awaitInstruction("sync");
            try (WsClient second = node.attach(session)) {
                Instruction error = second.awaitInstruction("error");
                assertEquals("797", error.arg(1));
                second.awaitClose();
                assertEquals("797", second.closeReason());
            }
            // the first WebSocket still works: the node answers its ping
            first.send("0.,4.ping,13.1700000000000;");
            Instruction pong = first.awaitInstruction("");
            assertEquals("ping", pong.arg(0));
            assertFalse(first.isClosed(), "the first WebSocket is unaffected");
            assertEquals(1, node.guacd.sessions().size(), "only one guacd connection");
        }
        node.assertNothingLeaks();
    }

    @Test
    void deleteEndsTheTunnelAndTheGuacdConnection() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            HttpResponse<String> deleted = node.request("DELETE", "/api/sessions/" + session.sessionId(),
                    TestNode.ADMIN, null);
            assertEquals(204, deleted.statusCode());
            assertEquals("523", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("523", ws.closeReason());
        }
        node.assertNothingLeaks();
        assertEquals(404, node.request("GET", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
    }

    @Test
    void guacdClosingEndsTheTunnelNormally() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            ws.send("10.disconnect;");
            ws.awaitClose();
            assertEquals("0", ws.closeReason());
            assertEquals((short) 1000, ws.closeCode());
        }
        node.assertNothingLeaks();
        assertEquals(SessionStatus.COMPLETED, node.session(session.sessionId()).status());
    }

    @Test
    void malformedClientDataIsRefusedAndGuacdNeverSeesIt() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            ws.send("5.mouse,9.1,1.0;4.sync,1.1;");
            Instruction error = ws.awaitInstruction("error");
            assertEquals("768", error.arg(1));
            assertTrue(error.arg(0).contains("expected ',' or ';'"), error.arg(0));
            ws.awaitClose();
            assertEquals("768", ws.closeReason());
        }
        node.assertNothingLeaks();
        // Nothing of the client's: only the node's own leave, at an instruction's boundary.
        assertEquals(List.of(Instruction.of("disconnect")), node.guacd.lastSession().received());
        assertEquals(SessionStatus.ERROR, node.session(session.sessionId()).status());
    }

    @Test
    void anOversizedElementIsRefusedBeforeGuacdWouldDropTheUser() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            ws.send("9.clipboard,99999.");
            assertEquals("768", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
        }
        node.assertNothingLeaks();
    }

    @Test
    void pendingSessionsExpire() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_SESSION_PENDING_TIMEOUT_SECS", "1"));
        SessionInfo session = node.sshSession();
        node.awaitStatus(session.sessionId(), SessionStatus.EXPIRED);
        try (WsClient ws = node.attach(session)) {
            assertEquals("518", ws.awaitInstruction("error").arg(1), "an ended session cannot be attached");
            ws.awaitClose();
        }
        assertEquals(0, node.guacd.sessions().size());
        node.assertNothingLeaks();
    }

    @Test
    void attachNeedsAValidSingleUseTicketOrToken() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=wst_nope", null)) {
            assertEquals("769", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("769", ws.closeReason());
        }
        String ticket = node.ticket(TestNode.ADMIN);
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            ws.awaitInstruction("sync");
        }
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            assertEquals("769", ws.awaitInstruction("error").arg(1), "a ticket works once");
            ws.awaitClose();
        }
        node.assertNothingLeaks();

        SessionInfo second = node.sshSession();
        MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("X-API-Key", TestNode.ADMIN);
        try (WsClient ws = node.connectRaw(second.wsUrl(), headers)) {
            ws.awaitInstruction("sync");
        }
        node.assertNothingLeaks();
    }

    @Test
    void othersCannotAttachToMySession() throws Exception {
        node = TestNode.start();
        String alice = node.createToken("alice", "poweruser");
        String bob = node.createToken("bob", "poweruser");
        SessionInfo session = node.createSession(alice, "{\"hostname\":\"127.0.0.1\"}");
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + node.ticket(bob), null)) {
            assertEquals("516", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
        }
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + node.ticket(alice), null)) {
            ws.awaitInstruction("sync");
        }
        node.assertNothingLeaks();
    }

    @Test
    void aForeignOriginGets403BeforeAnyUpgrade() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        MultiMap evil = MultiMap.caseInsensitiveMultiMap().add("Origin", "https://evil.example");
        Exception refused = null;
        try (WsClient ignored = node.connectRaw(session.wsUrl() + "?ticket=" + node.ticket(TestNode.ADMIN), evil)) {
            // must not get here
        } catch (Exception e) {
            refused = e;
        }
        assertNotNull(refused);
        assertTrue(String.valueOf(refused.getMessage()).contains("403"), refused.getMessage());

        MultiMap same = MultiMap.caseInsensitiveMultiMap().add("Origin", "http://127.0.0.1:" + node.port());
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + node.ticket(TestNode.ADMIN), same)) {
            ws.awaitInstruction("sync");
        }
        node.assertNothingLeaks();
    }

    /**
     * An attach is answered without a blocking thread: with every one of the node's busy (the worker pool, and
     * Vert.x's own for file access), a WebSocket still opens and relays. It once passed the pages' handler first,
     * which looked a file up for its path on Vert.x's blocking pool, behind whatever else waited there.
     */
    @Test
    void anAttachDoesNotWaitForABlockingThread() throws Exception {
        node = TestNode.start();
        SessionInfo session = node.sshSession();
        VertxInternal vertx = (VertxInternal) node.node.runtime().vertx();
        int threads = VertxOptions.DEFAULT_WORKER_POOL_SIZE + VertxOptions.DEFAULT_INTERNAL_BLOCKING_POOL_SIZE;
        CountDownLatch busy = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        Runnable hold = () -> {
            busy.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            for (int i = 0; i < VertxOptions.DEFAULT_WORKER_POOL_SIZE; i++) {
                vertx.workerPool().executor().execute(hold);
            }
            for (int i = 0; i < VertxOptions.DEFAULT_INTERNAL_BLOCKING_POOL_SIZE; i++) {
                vertx.internalWorkerPool().executor().execute(hold);
            }
            assertTrue(busy.await(10, TimeUnit.SECONDS), "every blocking thread is taken");
            MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("X-API-Key", TestNode.ADMIN);
            try (WsClient ws = node.connectRaw(session.wsUrl(), headers)) {
                ws.awaitInstruction("sync");
            }
        } finally {
            release.countDown();
        }
        node.assertNothingLeaks();
    }

    @Test
    void aPlainGetOnTheTunnelPathIsABadRequest() throws Exception {
        node = TestNode.start();
        HttpResponse<String> response = node.request("GET", "/ws/whatever", TestNode.ADMIN, null);
        assertEquals(400, response.statusCode());
        assertTrue(TestNode.json(response).get("error").asText().contains("WebSocket"));
    }

    @Test
    void aSlowClientPausesGuacdInsteadOfFillingTheNodesMemory() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().flood(6048), Map.of());
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            SyntheticConnection guacd = node.guacd.lastSession();
            // How much guacd sends in a second while the client reads: the flood the pause must stop.
            long start = guacd.bytesSent();
            Awaitility.await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(10))
                    .until(() -> guacd.bytesSent() - start > 32L * 1024 * 1024);
            long atPause = guacd.bytesSent();
            ws.socket().pause();
            // Once the buffers between them are full, guacd is held: what it has sent stops growing.
            long[] last = {-1};
            Awaitility.await().pollInterval(Duration.ofMillis(250)).atMost(Duration.ofSeconds(10)).until(() -> {
                long now = guacd.bytesSent();
                boolean still = now == last[0];
                last[0] = now;
                return still;
            });
            long held = guacd.bytesSent();
            // Socket buffers and one write queue on each side at most; unbounded relaying would be ~100s of MB.
            // Loopback's buffers grow up to the kernel's tcp_rmem/tcp_wmem maxima (32 MB of receive buffer on some
            // hosts), so the bound is what two such sockets can hold, and never less than 16 MB.
            long buffers = Math.max(16L * 1024 * 1024, 2 * (tcpMax("tcp_rmem") + tcpMax("tcp_wmem")));
            assertTrue(held - atPause < buffers, "guacd kept sending " + (held - atPause)
                    + " bytes to a paused client, more than the sockets' buffers hold (" + buffers + ")");
            ws.socket().resume();
            long resumed = guacd.bytesSent();
            TestNode.await(() -> guacd.bytesSent() > resumed + 1_000_000, "the stream did not resume");
        }
        node.assertNothingLeaks();
    }

    /** The largest buffer the kernel lets a TCP socket grow to ({@code net.ipv4.<name>}'s third field), or 4 MB. */
    private static long tcpMax(String name) {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/net/ipv4", name))
                    .trim().split("\\s+");
            return Long.parseLong(fields[2]);
        } catch (java.io.IOException | RuntimeException e) {
            return 4L * 1024 * 1024;
        }
    }
}
