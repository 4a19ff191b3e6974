package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.WireLimits;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.s3.TestS3;
import org.junit.jupiter.api.Test;

/**
 * Two hours of a session played fast: a synthetic guacd whose clock moves two seconds a frame sends a frame every
 * four milliseconds while no browser is attached (the anchor reads it). 4 MB/s, a second of the disk's slack: at
 * 8 MB/s a machine busy with the rest of the suite once let the disk's chain fall half a second behind, and the
 * recording stopped as designed (4 MiB waited). The node records the whole of it with memory that does not grow with
 * the recording, keeps its spool within a few parts, and serves it back as a stream, never whole.
 *
 * <p>The node runs in this JVM beside other tests, so memory is the heap after a collection, and "flat" is judged
 * against what a recording held in memory would add: less than half of what was recorded (or read) in between.
 */
class LongRecordingTest {

    /** A frame every two seconds for two hours. */
    private static final int FRAMES = 3600;
    private static final int FRAME_BYTES = 16 * 1024;
    private static final long PART_BYTES = 5L << 20;

    @Test
    void twoHoursAreRecordedAndPlayedBackWithFlatMemory() throws Exception {
        try (TestS3 s3 = TestS3.start()) {
            Map<String, String> settings = new java.util.HashMap<>(s3.nodeEnv(s3.bucket("long")));
            settings.putAll(Map.of("GW_RECORDING", "all", "GW_RECORDING_PART_MB", "5",
                    "GW_REATTACH_GRACE_SECS", "600"));
            SyntheticGuacdOptions playedFast = new SyntheticGuacdOptions()
                    .stream(Duration.ofMillis(4), FRAME_BYTES).clockStep(Duration.ofSeconds(2));
            try (TestNode node = TestNode.start(playedFast, settings)) {
                SessionInfo session = node.sshSession();
                try (WsClient client = node.attach(session)) {
                    client.awaitInstruction("sync");
                    client.socket().close((short) 1001); // gone: the anchor reads guacd from now on
                }
                SyntheticConnection guacd = node.guacd.sessions().stream()
                        .filter(c -> c.joined() == null && c.isOpen()).reduce((a, b) -> b).orElseThrow();
                LongAccumulator spool = new LongAccumulator(Math::max, 0);

                awaitFrames(node, guacd, FRAMES / 4, spool);
                long heapEarly = heapAfterCollection();
                double recordedEarly = node.metric("farmgate_recording_bytes_total");
                awaitFrames(node, guacd, FRAMES, spool);
                long heapLate = heapAfterCollection();
                double recordedLate = node.metric("farmgate_recording_bytes_total");
                assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN,
                        null).statusCode());

                double recordedBetween = recordedLate - recordedEarly;
                assertTrue(recordedBetween > 40 << 20, "recorded in between: " + recordedBetween + " (stopped: "
                        + node.metric("farmgate_recordings_stopped_total") + ")");
                assertTrue(heapLate - heapEarly < recordedBetween / 2, "the node's heap grew by "
                        + (heapLate - heapEarly) + " bytes while " + recordedBetween + " were recorded");
                assertTrue(spool.get() <= 3 * PART_BYTES, "the spool held " + spool.get() + " bytes");

                JsonNode row = node.awaitRecordingEnded(session.sessionId());
                assertEquals("complete", row.get("state").asText(), row::toString);
                assertTrue(row.get("parts").asInt() > 10, row::toString);
                streamsBackWithFlatMemory(node, session.sessionId(), row.get("size_bytes").asLong());
            }
        }
    }

    /** Reads the recording 64 KiB at a time, the heap checked half-way, and its syncs followed to its end. */
    private static void streamsBackWithFlatMemory(TestNode node, String sessionId, long size) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port()
                + "/api/recordings/" + sessionId)).header("Authorization", "Bearer " + TestNode.ADMIN).build();
        long heapBefore = heapAfterCollection();
        HttpResponse<InputStream> response = http.send(get, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
        long[] syncs = new long[3]; // count, first, last
        long read = 0;
        long heapHalfWay = -1;
        byte[] buffer = new byte[64 * 1024];
        try (InputStream body = response.body()) {
            for (int n; (n = body.read(buffer)) > 0; ) {
                read += n;
                parser.feed(buffer, 0, n, instruction -> {
                    if (instruction.opcode().equals("sync")) {
                        long at = Long.parseLong(instruction.arg(0));
                        syncs[1] = syncs[0]++ == 0 ? at : syncs[1];
                        syncs[2] = at;
                    }
                });
                if (heapHalfWay < 0 && read >= size / 2) {
                    heapHalfWay = heapAfterCollection();
                }
            }
        }
        assertEquals(size, read);
        assertTrue(heapHalfWay - heapBefore < size / 2, "the node's heap grew by " + (heapHalfWay - heapBefore)
                + " bytes half-way through a recording of " + size);
        assertTrue(syncs[0] >= FRAMES, "syncs recorded: " + syncs[0]);
        assertTrue(syncs[2] - syncs[1] >= Duration.ofHours(2).minusSeconds(2).toMillis(),
                "the recording spans " + Duration.ofMillis(syncs[2] - syncs[1]));
    }

    private static void awaitFrames(TestNode node, SyntheticConnection guacd, int frames, LongAccumulator spool) {
        Awaitility.await(frames + " frames sent").atMost(Duration.ofMinutes(3)).pollInterval(100, TimeUnit.MILLISECONDS)
                .until(() -> {
                    spool.accumulate((long) node.metric("farmgate_recording_spool_bytes"));
                    return guacd.framesSent() >= frames;
                });
    }

    private static long heapAfterCollection() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
