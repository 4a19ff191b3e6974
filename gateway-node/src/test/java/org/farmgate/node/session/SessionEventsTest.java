package org.farmgate.node.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * A session's life as its subscribers hear it: every step once, in order, each with the record written with it; a
 * subscriber that throws keeps none of the others from hearing.
 */
class SessionEventsTest {

    private static final SyntheticGuacdOptions STREAMING = new SyntheticGuacdOptions()
            .stream(Duration.ofMillis(200), 200);

    @Test
    void aSessionsLifeIsHeardStepByStep() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of("GW_REATTACH_GRACE_SECS", "30"))) {
            List<SessionEvent> heard = new CopyOnWriteArrayList<>();
            node.node.sessionEvents().subscribe(event -> {
                throw new IllegalStateException("a broken subscriber");
            });
            node.node.sessionEvents().subscribe(heard::add);

            SessionInfo session = node.sshSession();
            try (WsClient owner = node.attach(session)) {
                owner.awaitInstruction("sync");
                String shareToken = TestNode.json(node.request("POST", "/api/sessions/" + session.sessionId()
                        + "/shares", TestNode.ADMIN, "{}")).get("share_token").asText();
                HttpResponse<String> granted = node.request("POST", "/api/share-ticket", null,
                        "{\"share\":\"" + shareToken + "\",\"name\":\"bob\"}");
                String ticket = TestNode.json(granted).get("ticket").asText();
                try (WsClient watcher = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
                    watcher.awaitInstruction("sync");
                }
                TestNode.await(() -> heard.stream().anyMatch(SessionEvent.WatcherLeft.class::isInstance),
                        "the watcher's going was not heard");
            }
            TestNode.await(() -> heard.stream().anyMatch(SessionEvent.Detached.class::isInstance),
                    "the owner's going was not heard");
            try (WsClient back = node.attach(session)) {
                back.awaitInstruction("sync");
                assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN,
                        null).statusCode());
            }

            assertEquals(List.of("Opened", "Attached", "WatcherJoined", "WatcherLeft", "Detached", "Attached",
                    "Deleted"), names(heard));
            assertTrue(heard.stream().allMatch(event -> event.session().sessionId().equals(session.sessionId())));
            assertEquals(SessionStatus.PENDING, heard.get(0).session().status());
            assertEquals(List.of("bob"), watcherNames(heard.get(2).session()));
            assertEquals(List.of(), watcherNames(heard.get(3).session()));
            assertEquals(SessionStatus.ACTIVE, heard.get(4).session().status());
            assertEquals(0, heard.get(4).session().activeConnections(), "the detached record counts no client");
            assertTrue(((SessionEvent.Deleted) heard.get(6)).wasLive());
            node.assertNothingLeaks();
        }
    }

    @Test
    void aSessionThatEndsIsHeardOnceWithItsTunnelsEnd() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of())) {
            List<SessionEvent> heard = new CopyOnWriteArrayList<>();
            node.node.sessionEvents().subscribe(heard::add);
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                client.send("10.disconnect;");
                node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            }
            SessionInfo expiring = node.sshSession();
            assertEquals(204, node.request("DELETE", "/api/sessions/" + expiring.sessionId(), TestNode.ADMIN, null)
                    .statusCode());
            node.assertNothingLeaks();

            List<SessionEvent> first = heard.stream().filter(e -> e.session().sessionId()
                    .equals(session.sessionId())).toList();
            assertEquals(List.of("Opened", "Attached", "Ended"), names(first));
            SessionEvent.Ended ended = (SessionEvent.Ended) first.get(2);
            assertEquals(SessionStatus.COMPLETED, ended.session().status());
            assertNotNull(ended.session().endedAt());
            assertNotNull(ended.end(), "the tunnel's end comes with the session's");
            assertTrue(ended.end().bytesToClient() > 0, "what the tunnel carried");
            List<SessionEvent> second = heard.stream().filter(e -> e.session().sessionId()
                    .equals(expiring.sessionId())).toList();
            assertEquals(List.of("Opened", "Deleted"), names(second));
            assertNull(second.get(1).session().endedAt());
        }
    }

    private static List<String> names(List<SessionEvent> events) {
        List<String> names = new ArrayList<>();
        events.forEach(event -> names.add(event.getClass().getSimpleName()));
        return names;
    }

    private static List<String> watcherNames(SessionInfo info) {
        return info.watchers().stream().map(watcher -> watcher.name()).toList();
    }
}
