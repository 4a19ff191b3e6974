package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.imageio.ImageIO;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Live thumbnails: drawn by the node that holds a session from the picture guacd gives a joining user (here a
 * synthetic guacd's known picture: four coloured quarters), asked through any node, shown only to who may see the
 * session, made at most once per interval, and gone with the session.
 */
class ThumbnailsTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(2, new SyntheticGuacdOptions().screen(quarters()), n -> Map.of(
                "GW_THUMBNAIL_SECS", "3600"));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    /** 640x480: red, green / blue, white. */
    private static byte[] quarters() throws Exception {
        BufferedImage image = new BufferedImage(640, 480, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        Color[] colours = {Color.RED, Color.GREEN, Color.BLUE, Color.WHITE};
        for (int i = 0; i < 4; i++) {
            g.setColor(colours[i]);
            g.fillRect(i % 2 * 320, i / 2 * 240, 320, 240);
        }
        g.dispose();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    private static HttpResponse<byte[]> thumbnail(TestNode node, String sessionId, String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/api/sessions/"
                + sessionId + "/thumbnail")).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aSessionsPictureComesFromItsGuacdThroughAnyNodeOncePerInterval() throws Exception {
        SessionInfo session = cluster.node(1).createSession(TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\",\"width\":640,\"height\":480}");
        HttpResponse<byte[]> early = thumbnail(cluster.node(2), session.sessionId(), TestNode.ADMIN);
        assertEquals(404, early.statusCode(), () -> new String(early.body()));
        assertTrue(new String(early.body()).contains("shows nothing yet"), () -> new String(early.body()));

        try (WsClient ws = cluster.node(1).attach(session)) {
            ws.awaitInstruction("sync");
            TestNode holder = cluster.byId(session.nodeId());
            long joinsBefore = joins(holder);
            String firstMade = null;
            for (int n = 1; n <= 2; n++) {
                HttpResponse<byte[]> shown = thumbnail(cluster.node(n), session.sessionId(), TestNode.ADMIN);
                assertEquals(200, shown.statusCode(), () -> new String(shown.body()));
                assertEquals("image/jpeg", shown.headers().firstValue("Content-Type").orElseThrow());
                BufferedImage picture = ImageIO.read(new ByteArrayInputStream(shown.body()));
                assertEquals(320, picture.getWidth());
                assertEquals(240, picture.getHeight());
                assertNear(Color.RED, picture.getRGB(80, 60));
                assertNear(Color.GREEN, picture.getRGB(240, 60));
                assertNear(Color.BLUE, picture.getRGB(80, 180));
                assertNear(Color.WHITE, picture.getRGB(240, 180));
                String made = shown.headers().firstValue("X-Made-At").orElseThrow();
                if (firstMade == null) {
                    firstMade = made;
                } else {
                    assertEquals(firstMade, made, "a second ask within the interval made a second picture");
                }
            }
            assertEquals(joinsBefore + 1, joins(holder), "one join of guacd for two asks");
            TestNode.await(() -> holder.guacd.sessions().stream().filter(c -> c.joined() != null)
                    .noneMatch(c -> c.isOpen()), "the join is closed once the picture is made");

            if (HeadlessChromium.isInstalled()) {
                try (HeadlessChromium chromium = new HeadlessChromium(1200, 700)) {
                    chromium.navigate("http://127.0.0.1:" + cluster.node(2).port() + "/#token=" + TestNode.ADMIN);
                    String img = "document.querySelector('tr[data-session=\"" + session.sessionId() + "\"] img.thumb')";
                    assertEquals("320", chromium.awaitValue("String(" + img + " && " + img + ".naturalWidth)", "320",
                            15_000), "the sessions list shows the picture");
                    String pixel = chromium.evaluate("(() => { const c = document.createElement('canvas');"
                            + " c.width = 320; c.height = 240; const g = c.getContext('2d');"
                            + " g.drawImage(" + img + ", 0, 0); return Array.from(g.getImageData(80, 60, 1, 1).data"
                            + ".slice(0, 3)).join(); })()");
                    String[] rgb = pixel.split(",");
                    assertNear(Color.RED, new Color(Integer.parseInt(rgb[0]), Integer.parseInt(rgb[1]),
                            Integer.parseInt(rgb[2])).getRGB());
                    chromium.screenshot(Path.of("target", "screenshots", "sessions-thumbnails.png"));
                }
            }

            String other = cluster.node(1).createToken("thumb-other", "operator");
            assertEquals(404, thumbnail(cluster.node(2), session.sessionId(), other).statusCode(),
                    "someone who may not see the session saw its picture");
        }
        cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
        assertEquals(404, thumbnail(cluster.node(1), session.sessionId(), TestNode.ADMIN).statusCode());
    }

    private static long joins(TestNode node) {
        return node.guacd.sessions().stream().filter(c -> c.joined() != null).count();
    }

    private static void assertNear(Color expected, int rgb) {
        Color seen = new Color(rgb);
        int off = Math.abs(seen.getRed() - expected.getRed()) + Math.abs(seen.getGreen() - expected.getGreen())
                + Math.abs(seen.getBlue() - expected.getBlue());
        assertTrue(off < 60, () -> "expected " + expected + ", saw " + seen);
    }
}
