package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The site's notice (GW_SESSION_BANNER): shown before a session starts, accepted once per session, audited. */
class SessionBannerTest {

    private static final String BANNER = "Authorised use only.\nEverything you do here is recorded.";
    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_SESSION_BANNER", BANNER,
                "GW_REATTACH_GRACE_SECS", "60")); // a reloaded page comes back to its session
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @Test
    void theBannerIsRustguacsAndOnlyForWhoMaySeeTheSession() throws Exception {
        assertEquals(BANNER, TestNode.json(node.request("GET", "/api/auth/status", null, null)).get("banner")
                .asText());
        SessionInfo session = node.sshSession();
        assertEquals(BANNER, TestNode.json(node.request("GET", "/api/sessions/" + session.sessionId() + "/banner",
                TestNode.ADMIN, null)).get("banner").asText());
        String other = node.createToken("banner-other", "poweruser");
        assertEquals(404, node.request("GET", "/api/sessions/" + session.sessionId() + "/banner", other, null)
                .statusCode());
        assertEquals(404, node.request("POST", "/api/sessions/" + session.sessionId() + "/banner/accept", other,
                null).statusCode());
    }

    @Test
    void thePageShowsItBeforeTheSessionAndTheAcceptanceIsAudited() throws Exception {
        assumeTrue(HeadlessChromium.isInstalled(), "Debian's chromium is not installed (apt-get install chromium)");
        SessionInfo session = node.sshSession();
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("false", chromium.awaitValue("String(document.getElementById('banner').hidden)", "false",
                    10_000), "the notice is shown");
            assertEquals(BANNER, chromium.evaluate("document.getElementById('banner-text').textContent"));
            assertEquals(SessionStatus.PENDING, node.session(session.sessionId()).status(),
                    "no tunnel before the notice is accepted");
            chromium.screenshot(Path.of("target", "screenshots", "client-banner.png"));
            chromium.evaluate("document.getElementById('banner-accept').click()");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            Awaitility.await("the acceptance in the audit log").atMost(Duration.ofSeconds(10)).until(() -> node
                    .request("GET", "/api/audit?action=session.banner_accept&target=" + session.sessionId(),
                            TestNode.ADMIN, null).body().contains("\"target\":\"" + session.sessionId() + "\""));

            // The mark dies with the old document, so the wait below cannot be met by the page being reloaded.
            chromium.evaluate("window.beforeReload = true; location.reload()");
            assertEquals("connected", chromium.awaitValue(
                    "window.beforeReload ? 'not yet reloaded' : document.body.dataset.state", "connected", 15_000),
                    "accepted once per session: the reloaded page goes straight back");
            assertEquals("true", chromium.evaluate("String(document.getElementById('banner').hidden)"));
        }
    }
}
