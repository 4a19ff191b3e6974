package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.db.RustguacDatabase;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * The history, audit, people and mappings page in Debian's headless Chromium, on a node that imported a rustguac
 * database (so that it has people): an admin searches and changes, an auditor reads without a button to change, a
 * viewer sees their own history only.
 */
class RecordsPageTest {

    private static final Path SHOTS = Path.of("target", "screenshots");

    @Test
    void adminsChangeAuditorsReadAndViewersSeeTheirOwnHistory() throws Exception {
        assumeTrue(HeadlessChromium.isInstalled(), "Debian's chromium is not installed (apt-get install chromium)");
        Path data = Files.createTempDirectory("farmgate-records-page");
        // the fixture's sessions are of February 2026: kept whatever today is, so the hourly purge never takes them
        Map<String, String> settings = Map.of("GW_DATA_DIR", data.toString(), "GW_NODE_ID", "test-node",
                "GW_HISTORY_RETENTION_DAYS", "36500");
        assertEquals(0, ImportRustguac.run(NodeConfig.from(new ConfigSource(settings)), RustguacDatabase.create(),
                Clock.systemUTC(), new PrintStream(PrintStream.nullOutputStream())));
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), settings);
                HeadlessChromium chromium = new HeadlessChromium(1400, 800)) {
            String viewer = node.createToken("vic", "viewer");
            String auditor = node.createToken("audra", "auditor");
            node.sshSession();
            node.sshSession();
            String page = "http://127.0.0.1:" + node.port() + "/records.html";

            chromium.navigate(page + "#history&token=" + TestNode.ADMIN);
            assertEquals("5", chromium.awaitValue("document.getElementById('history-rows').dataset.loaded", "5",
                    10_000), "rustguac's 3 rows and this node's 2");
            chromium.evaluate("document.querySelector('form[data-for=sessions] [name=user]').value = 'alice';"
                    + "document.querySelector('form[data-for=sessions] .primary').click()");
            assertEquals("1", chromium.awaitValue("document.getElementById('history-rows').dataset.loaded", "1",
                    10_000), "searched by user");
            chromium.screenshot(SHOTS.resolve("records-history.png"));

            chromium.navigate(page + "#audit");
            assertEquals("audit", chromium.awaitValue("document.body.dataset.tab", "audit", 10_000));
            chromium.evaluate("document.getElementById('verify').click()");
            assertEquals("true", chromium.awaitValue("document.getElementById('chain').dataset.intact", "true",
                    10_000), chromium.evaluate("document.getElementById('chain').textContent"));

            chromium.navigate(page + "#people");
            String bob = "document.querySelector('tr[data-person=\"oidc:sub-bob\"]')";
            assertEquals("true", chromium.awaitValue(bob + "?.dataset.disabled", "true", 10_000),
                () -> evaluate(chromium, "document.getElementById('status').textContent + ' | ' + document.body.dataset.tab"
                        + " + ' | ' + document.getElementById('people-rows').innerHTML"));
            chromium.evaluate(bob + ".querySelector('button.toggle').click()");
            assertEquals("false", chromium.awaitValue(bob + ".dataset.disabled", "false", 10_000), "enabled");
            chromium.evaluate("const s = " + bob + ".querySelector('select'); s.value = 'auditor';"
                    + "s.dispatchEvent(new Event('change'))");
            assertEquals("auditor", chromium.awaitValue(bob + ".dataset.role", "auditor", 10_000));
            chromium.screenshot(SHOTS.resolve("records-people.png"));

            chromium.navigate(page + "#mappings");
            chromium.awaitValue("document.body.dataset.tab", "mappings", 10_000);
            chromium.evaluate("const f = document.getElementById('add-mapping'); f.group.value = 'night-shift';"
                    + "f.role.value = 'operator'; f.requestSubmit()");
            assertEquals("operator", chromium.awaitValue("document.querySelector('tr[data-group=\"night-shift\"] "
                    + "select')?.value", "operator", 10_000));

            chromium.navigate(page + "?as=auditor#people&token=" + auditor); // a new page load: a new token
            assertEquals("2", chromium.awaitValue("String(document.querySelectorAll('#people-rows tr').length)", "2",
                    10_000));
            assertEquals("0", chromium.evaluate("String(document.querySelectorAll('#people-rows button, "
                    + "#people-rows select').length)"), "an auditor gets nothing to change");
            assertTrue(chromium.evaluate("document.getElementById('add-mapping').hidden").equals("true"));

            chromium.navigate(page + "?as=viewer#audit&token=" + viewer);
            assertEquals("history", chromium.awaitValue("document.body.dataset.tab", "history", 10_000),
                    "a viewer has no audit tab");
            assertEquals("0", chromium.awaitValue("document.getElementById('history-rows').dataset.loaded", "0",
                    10_000), "a viewer who opened nothing sees no history");
            assertEquals("true", chromium.evaluate("document.querySelector('nav a[data-tab=audit]').hidden"));
        }
    }

    private static String evaluate(HeadlessChromium chromium, String expression) {
        try {
            return chromium.evaluate(expression);
        } catch (Exception e) {
            return e.toString();
        }
    }
}
