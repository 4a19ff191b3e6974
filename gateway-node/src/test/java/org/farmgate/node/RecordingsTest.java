package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.s3.TestS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Sessions recorded at the node that holds them, uploaded to a real S3 API (S3Proxy) in parts while they run, and
 * played from any node: the recording is what the browser was shown, with the input the site asked for, without a
 * credential, without a gap while the browser was away; storage that goes away stops nothing; a node that dies
 * leaves a recording the cluster completes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RecordingsTest {

    private static final String PASSWORD = "pw-that-must-never-be-recorded";
    /** 64 KiB every 20 ms: a part (5 MiB) in under two seconds. */
    private static final SyntheticGuacdOptions STREAMING = new SyntheticGuacdOptions()
            .stream(Duration.ofMillis(20), 64 * 1024);

    private static TestS3 s3;
    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        String url = TestPostgres.shared().get().newDatabase();
        String user = TestPostgres.shared().get().user();
        s3 = TestS3.start();
        String bucket = s3.bucket("cluster-recordings");
        cluster = TestCluster.start(2, STREAMING, i -> {
            Map<String, String> values = new java.util.HashMap<>(s3.nodeEnv(bucket));
            values.putAll(Map.of("GW_DB_URL", url.substring("jdbc:".length()), "GW_DB_USER", user,
                    "GW_RECORDING", "all", "GW_RECORDING_KEYS", "true", "GW_RECORDING_PART_MB", "5",
                    "GW_REATTACH_GRACE_SECS", "30"));
            return values;
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void aSessionIsRecordedAsItsClientSawItAndPlaysFromAnyNode() throws Exception {
        SessionInfo session = cluster.node(1).createSession(TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\","
                + "\"username\":\"bench\",\"password\":\"" + PASSWORD + "\"}");
        assertTrue(session.recorded(), "the session's record says it is recorded, for the page to tell its user");
        TestNode holder = cluster.byId(session.nodeId());
        TestNode other = cluster.nodes.stream().filter(node -> node != holder).findFirst().orElseThrow();
        List<Instruction> seen = new ArrayList<>();
        try (WsClient client = other.attach(session)) { // relayed: the recording is made where the session is
            client.awaitInstruction("sync");
            client.send(Instruction.of("key", "97", "1").encode() + Instruction.of("key", "97", "0").encode()
                    + Instruction.of("mouse", "10", "20", "1").encode());
            Thread.sleep(600); // a few more frames, partly after the input
            seen.addAll(client.drain());
            client.send("10.disconnect;");
            client.awaitClose();
            seen.addAll(client.drain());
        }
        String name = session.sessionId() + ".guac";
        JsonNode row = awaitRecording(other, session.sessionId(), "complete");
        assertEquals(session.nodeId(), row.get("node_id").asText());
        assertTrue(row.get("keys_included").asBoolean());

        HttpResponse<String> played = other.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null);
        assertEquals(200, played.statusCode(), played::body);
        String recording = played.body();
        assertEquals(String.valueOf(recording.length()), played.headers().firstValue("Content-Length").orElseThrow());
        assertEquals(row.get("size_bytes").asLong(), recording.length(), "the index knows the object's size");
        assertFalse(recording.contains(PASSWORD), "no credential is recorded");

        List<Instruction> recorded = WsClient.parse(recording);
        List<Instruction> display = recorded.stream().filter(i -> !i.opcode().equals("key")
                && !i.opcode().equals("mouse")).toList();
        List<Instruction> shown = seen.stream().filter(i -> !i.opcode().isEmpty()).toList();
        // The client's first messages (up to its first sync) were read by awaitInstruction: what it kept after them
        // is one run of the recording.
        assertTrue(shown.size() > 10 && java.util.Collections.indexOfSubList(display, shown) > 0, () -> "the "
                + "recording holds what the client was shown, in order (" + display.size() + " recorded, "
                + shown.size() + " shown; the first shown: " + brief(shown, 0) + ")");
        assertEquals("size", display.get(0).opcode(), "it starts as guacd's own stream does");
        List<Instruction> input = recorded.stream().filter(i -> i.opcode().equals("key")
                || i.opcode().equals("mouse")).toList();
        assertEquals(List.of("key 97 1", "key 97 0", "mouse 10 20 1"), input.stream().map(i -> i.opcode() + " "
                + String.join(" ", i.args().subList(0, i.args().size() - 1))).toList(),
                "the input as guacd records it, each with its time: " + input);
        // on guacd's clock (its syncs' milliseconds), or a player and guacenc would see a jump of decades
        long[] syncs = display.stream().filter(i -> i.opcode().equals("sync")).mapToLong(i -> Long.parseLong(i.arg(0)))
                .toArray();
        long first = java.util.Arrays.stream(syncs).min().orElseThrow();
        long last = java.util.Arrays.stream(syncs).max().orElseThrow();
        input.forEach(i -> {
            long at = Long.parseLong(i.arg(i.args().size() - 1));
            assertTrue(at >= first && at <= last + 2000, i + " is not between the syncs " + first + " and " + last);
        });

        // Ranges, as a player seeking or a download resuming asks for them.
        HttpResponse<String> part = holder.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null,
                Map.of("Range", "bytes=10-19"));
        assertEquals(206, part.statusCode());
        assertEquals(recording.substring(10, 20), part.body());
        assertEquals("bytes 10-19/" + recording.length(), part.headers().firstValue("Content-Range").orElseThrow());
        HttpResponse<String> tail = holder.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null,
                Map.of("Range", "bytes=-5"));
        assertEquals(recording.substring(recording.length() - 5), tail.body());
        HttpResponse<String> beyond = holder.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null,
                Map.of("Range", "bytes=" + recording.length() + "-"));
        assertEquals(416, beyond.statusCode());
        assertEquals("bytes */" + recording.length(), beyond.headers().firstValue("Content-Range").orElseThrow());
        assertEquals(400, holder.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null,
                Map.of("Range", "lines=1-2")).statusCode());
        assertEquals(400, holder.request("GET", "/api/recordings/..%2Fetc", TestNode.ADMIN, null).statusCode());

        // Who may watch: admins and auditors; an operator not even their own here (no GW_RECORDING_OWNER_ACCESS).
        String operator = holder.createToken("rec-operator", "operator");
        assertEquals(403, holder.request("GET", "/api/recordings", operator, null).statusCode());
        assertEquals(404, holder.request("GET", "/api/recordings/" + name, operator, null).statusCode());
        String auditor = holder.createToken("rec-auditor", "auditor");
        assertEquals(200, holder.request("GET", "/api/recordings/" + name, auditor, null).statusCode());
        assertEquals(403, holder.request("DELETE", "/api/recordings/" + name, auditor, null).statusCode());

        // Every playback is an audit event, its later ranges not again.
        TestNode.await(() -> auditCount(holder, "recording.play", name) == 2, "the two playbacks from offset 0 "
                + "(admin, auditor) are audit events");

        // The history row names its recording, as rustguac's recording_file does.
        JsonNode history = TestNode.json(holder.request("GET", "/api/reports/sessions", TestNode.ADMIN, null));
        assertTrue(history.toString().contains("\"recording_file\":\"" + name + "\""), history::toString);

        if (HeadlessChromium.isInstalled()) {
            playsInTheBrowser(other, session.sessionId());
        }

        assertEquals(204, other.request("DELETE", "/api/recordings/" + name, TestNode.ADMIN, null).statusCode());
        assertEquals(404, holder.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null).statusCode());
        TestNode.await(() -> listed(holder).stream().noneMatch(r -> r.get("session_id").asText()
                .equals(session.sessionId())), "a deleted recording leaves the list");
        assertEquals(404, holder.request("DELETE", "/api/recordings/" + name, TestNode.ADMIN, null).statusCode());
    }

    @Test
    void theRecordingHasNoGapWhileTheBrowserIsAwayAndUploadsInParts() throws Exception {
        SessionInfo session = cluster.node(2).sshSession();
        TestNode holder = cluster.byId(session.nodeId());
        int received = 0;
        try (WsClient first = holder.attach(session)) {
            first.awaitInstruction("sync");
            received += (int) first.drain().stream().filter(i -> i.opcode().equals("sync")).count();
            first.socket().close((short) 1001); // gone without a word: its guacd connection is held
        }
        // the session's own connection: a thumbnail's join may have come after it
        SyntheticConnection original = holder.guacd.sessions().stream()
                .filter(c -> c.joined() == null && c.isOpen()).reduce((a, b) -> b).orElseThrow();
        long framesWhenLeft = original.framesSent();
        Awaitility.await("frames go on while nobody watches").atMost(20, TimeUnit.SECONDS)
                .until(() -> original.framesSent() > framesWhenLeft + 50);
        // More than a part's worth while away: parts go up while the session runs.
        awaitAnUploadedPart(holder, session.sessionId());
        try (WsClient again = holder.attach(session)) {
            again.awaitInstruction("sync");
            Thread.sleep(200);
            received += (int) again.drain().stream().filter(i -> i.opcode().equals("sync")).count();
        }
        assertEquals(204, holder.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
        JsonNode row = awaitRecording(holder, session.sessionId(), "complete");
        assertTrue(row.get("parts").asInt() >= 2, row::toString);
        assertEquals(1, row.get("joins").size(), "the browser that came back joined once: " + row.get("joins"));
        assertFalse(row.get("joins").get(0).get("share").asBoolean(), "its own user, not a watcher");
        String recording = holder.request("GET", "/api/recordings/" + session.sessionId(), TestNode.ADMIN, null)
                .body();
        long recordedSyncs = WsClient.parse(recording).stream().filter(i -> i.opcode().equals("sync")).count();
        assertTrue(recordedSyncs >= framesWhenLeft + 50 && recordedSyncs > received,
                "the frames sent while no browser was attached are recorded: " + recordedSyncs + " syncs recorded, "
                        + received + " seen by the browsers");
    }

    /**
     * A running session's recording plays up to now from either node: the part already uploaded from storage, the
     * rest from the node that records it; each playback is a whole Guacamole stream from its start, and what it
     * played is the beginning of the recording completed at the session's end.
     */
    @Test
    void aRunningSessionsRecordingPlaysUpToNowFromAnyNode() throws Exception {
        SessionInfo session = cluster.node(1).sshSession();
        TestNode holder = cluster.byId(session.nodeId());
        TestNode other = cluster.nodes.stream().filter(node -> node != holder).findFirst().orElseThrow();
        String path = "/api/recordings/" + session.sessionId();
        List<String> played = new ArrayList<>();
        try (WsClient client = holder.attach(session)) {
            client.awaitInstruction("sync");
            awaitAnUploadedPart(other, session.sessionId());
            for (TestNode node : List.of(other, holder)) {
                HttpResponse<String> live = node.request("GET", path, TestNode.ADMIN, null);
                assertEquals(200, live.statusCode(), live::body);
                assertEquals("recording", live.headers().firstValue("X-Recording-State").orElse(""));
                assertTrue(live.body().length() > 5 << 20, "beyond the uploaded part: " + live.body().length());
                List<Instruction> instructions = WsClient.parse(live.body()); // whole instructions, to the end
                assertTrue(instructions.stream().anyMatch(i -> i.opcode().equals("sync")), "a stream from its start");
                played.add(live.body());
            }
            assertTrue(played.get(1).length() >= played.get(0).length(), "later, longer");
            try (HeadlessChromium chromium = new HeadlessChromium(1200, 900)) {
                chromium.navigate("http://127.0.0.1:" + other.port() + "/records.html#recordings&token="
                        + TestNode.ADMIN);
                String button = "document.querySelector('tr[data-recording=\"" + session.sessionId()
                        + "\"] button.play')";
                chromium.awaitValue("String(" + button + " && " + button + ".textContent)", "Play so far", 15_000);
                chromium.evaluate(button + ".click()");
                chromium.awaitValue("String(['playing', 'paused'].includes(document.getElementById('player')"
                        + ".dataset.state))", "true", 20_000);
            }
            int across = 5 << 20;
            HttpResponse<String> range = other.request("GET", path, TestNode.ADMIN, null,
                    Map.of("Range", "bytes=" + (across - 100) + "-" + (across + 99)));
            assertEquals(206, range.statusCode(), range::body);
            played.add(range.body());
            JsonNode share = SharingTest.share(holder, TestNode.ADMIN, session, "{\"mode\":\"read-only\"}");
            String ticket = SharingTest.shareTicket(holder, share.get("share_token").asText(), "bob").get("ticket")
                    .asText();
            try (WsClient watcher = SharingTest.attach(holder, session, ticket)) {
                watcher.awaitInstruction("sync");
            }
            client.drain();
        }
        assertEquals(204, holder.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
        awaitRecording(other, session.sessionId(), "complete");
        JsonNode joins = awaitRecording(other, session.sessionId(), "complete").get("joins");
        assertEquals(1, joins.size(), joins::toString);
        assertEquals("bob", joins.get(0).get("who").asText(), "the watcher's join is noted beside the recording");
        assertTrue(joins.get(0).get("share").asBoolean());
        String complete = other.request("GET", path, TestNode.ADMIN, null).body();
        assertTrue(complete.startsWith(played.get(0)) && complete.startsWith(played.get(1)),
                "what was played while it ran is how the recording begins");
        int across = 5 << 20;
        assertEquals(complete.substring(across - 100, across + 100), played.get(2), "a range across the parts");
    }

    /** Last: it kills a node of the class's cluster. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aDeadNodesRecordingIsCompletedByTheCluster() throws Exception {
        SessionInfo session = cluster.node(1).sshSession();
        TestNode holder = cluster.byId(session.nodeId());
        TestNode survivor = cluster.nodes.stream().filter(node -> node != holder).findFirst().orElseThrow();
        try (WsClient client = holder.attach(session)) {
            client.awaitInstruction("sync");
            awaitAnUploadedPart(survivor, session.sessionId());
            holder.crash();
        }
        TestNode.await(() -> TestCluster.clusterSize(survivor) == 1, "the dead node is still in the registry");
        // A round may fail while what the dead node had under way still lands (its storage calls outlive its
        // cluster membership here); the coordinator's next round tries again, as this does.
        TestNode.await(() -> rescued(survivor) == 1, "the cluster did not complete the recording");
        JsonNode row = awaitRecording(survivor, session.sessionId(), "incomplete");
        assertTrue(row.get("state_detail").asText().contains("left the cluster while recording"), row::toString);
        HttpResponse<String> played = survivor.request("GET", "/api/recordings/" + session.sessionId(),
                TestNode.ADMIN, null);
        assertEquals(200, played.statusCode());
        assertTrue(played.body().length() >= 5 << 20, "what the dead node uploaded plays");
        assertTrue(WsClient.parse(played.body().substring(0, played.body().lastIndexOf(';') + 1)).stream()
                .anyMatch(i -> i.opcode().equals("sync")), "it is a Guacamole stream from its start");
        assertEquals(0, rescued(survivor), "done once");
    }

    /** One round of the coordinator's rescue: how many recordings of departed nodes it completed. */
    private static int rescued(TestNode node) {
        try {
            return node.node.recordingRescue().completeOrphans(Instant.now()).toCompletionStage()
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The records page's recordings tab plays it with guacamole-common-js, its key log showing the key typed. */
    private static void playsInTheBrowser(TestNode node, String sessionId) throws Exception {
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 900)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/records.html#recordings&token=" + TestNode.ADMIN);
            String button = "document.querySelector('tr[data-recording=\"" + sessionId + "\"] button.play')";
            chromium.awaitValue("String(Boolean(" + button + "))", "true", 15_000);
            chromium.evaluate(button + ".click()");
            chromium.awaitValue("String(['playing', 'paused'].includes(document.getElementById('player').dataset"
                    + ".state))", "true", 20_000);
            assertEquals("97", chromium.evaluate("document.querySelector('.player-keys li').dataset.keysym"),
                    "the key log shows the key typed (a, keysym 97)");
            assertEquals("1", chromium.evaluate("String(document.querySelectorAll('.player-keys li').length)"),
                    "a key pressed once is logged once");
            chromium.awaitValue("String(document.querySelector('.player-screen canvas') !== null && document"
                    + ".querySelector('.player-screen canvas').width > 0)", "true", 10_000);
            chromium.screenshot(java.nio.file.Path.of("target", "screenshots", "recording-player.png"));
            // At 8x, from the start: the page steps it on (SessionRecording 1.5.0 plays in real time only) and it
            // plays to its end. How fast is not asserted: this recording is 0.6 s long, less than the page's ticks
            // and the browser's drawing on a busy machine.
            chromium.awaitValue("document.getElementById('player').dataset.state", "paused", 30_000);
            String played = chromium.call("Runtime.evaluate", Map.of("awaitPromise", true, "returnByValue", true,
                    "expression", "(async () => { const p = document.getElementById('player'); "
                    + "const speed = p.querySelector('select.player-speed'); speed.value = '8'; "
                    + "speed.dispatchEvent(new Event('change')); const seek = p.querySelector('input[type=range]'); "
                    + "seek.value = 0; seek.dispatchEvent(new Event('input')); "
                    + "await new Promise(r => setTimeout(r, 300)); const start = performance.now(); "
                    + "p.querySelector('button.primary').click(); "
                    + "while (p.dataset.state !== 'paused' || performance.now() - start < 50) { "
                    + "await new Promise(r => setTimeout(r, 20)); if (performance.now() - start > 60000) break; } "
                    + "return p.dataset.speed + ' ' + p.dataset.duration + ' ' + p.dataset.position; })()"))
                    .path("result").path("value").asText();
            String[] figures = played.split(" ");
            assertEquals("8", figures[0], played);
            assertEquals(Double.parseDouble(figures[1]), Double.parseDouble(figures[2]), 1.0,
                    "played to its end at 8x: " + played);
        }
    }

    private static String brief(List<Instruction> instructions, int at) {
        if (at >= instructions.size()) {
            return "(nothing)";
        }
        String text = instructions.get(at).encode();
        return text.length() > 120 ? text.substring(0, 120) + "…" : text;
    }

    private static void awaitAnUploadedPart(TestNode node, String sessionId) {
        TestNode.await(() -> {
            JsonNode row = recording(node, sessionId);
            return row != null && row.get("parts").asInt() >= 1;
        }, "no part was uploaded while the session ran");
    }

    private static JsonNode awaitRecording(TestNode node, String sessionId, String state) {
        JsonNode[] found = new JsonNode[1];
        try {
            Awaitility.await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100)).until(() -> {
                found[0] = recording(node, sessionId);
                return found[0] != null && found[0].get("state").asText().equals(state);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("recording " + sessionId + " not " + state + " within 30 s: " + found[0], e);
        }
        return found[0];
    }

    private static JsonNode recording(TestNode node, String sessionId) {
        return listed(node).stream().filter(r -> r.get("session_id").asText().equals(sessionId)).findFirst()
                .orElse(null);
    }

    private static List<JsonNode> listed(TestNode node) {
        try {
            HttpResponse<String> response = node.request("GET", "/api/recordings?limit=500", TestNode.ADMIN, null);
            assertEquals(200, response.statusCode(), response::body);
            List<JsonNode> rows = new ArrayList<>();
            TestNode.json(response).forEach(rows::add);
            return rows;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static long auditCount(TestNode node, String action, String target) {
        try {
            JsonNode events = TestNode.json(node.request("GET", "/api/audit?action=" + action
                    + "&outcome=success&limit=100", TestNode.ADMIN, null)).get("events");
            long count = 0;
            for (JsonNode event : events) {
                if (event.toString().contains(target)) {
                    count++;
                }
            }
            return count;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
