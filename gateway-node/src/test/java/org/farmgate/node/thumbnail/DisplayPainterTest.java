package org.farmgate.node.thumbnail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The painter against what guacd 1.6 sends a joining user ({@code guac_display_dup}: per layer {@code size}, a PNG
 * in {@code img}/{@code blob}/{@code end}, a {@code copy} to the layer's last-frame buffer; then the cursor and
 * {@code sync}), fed through the parser in every split of the stream, and against what a display cannot be.
 */
class DisplayPainterTest {

    private static String png(int width, int height, Color colour) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(colour);
        g.fillRect(0, 0, width, height);
        g.dispose();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    /**
     * A 640x480 screen: black, a red picture in its left half, a blue rectangle at the bottom right, and a white
     * child layer at half opacity at the top right.
     */
    private static List<Instruction> joinedScreen() throws IOException {
        return List.of(
                Instruction.of("size", "0", "640", "480"),
                Instruction.of("size", "-1", "16", "16"), // the cursor's buffer: not the screen
                Instruction.of("img", "2", "14", "-1", "image/png", "0", "0"),
                Instruction.of("blob", "2", png(16, 16, Color.GREEN)),
                Instruction.of("end", "2"),
                Instruction.of("img", "1", "14", "0", "image/png", "0", "0"),
                Instruction.of("blob", "1", png(320, 480, Color.RED)),
                Instruction.of("end", "1"),
                Instruction.of("copy", "0", "0", "0", "640", "480", "14", "-3", "0", "0"), // to its last frame
                Instruction.of("rect", "0", "480", "360", "160", "120"),
                Instruction.of("cfill", "14", "0", "0", "0", "255", "255"),
                // a child layer, as a terminal's text: on layer 0 at (480, 0), half transparent over black
                Instruction.of("size", "1", "160", "120"),
                Instruction.of("img", "4", "14", "1", "image/png", "0", "0"),
                Instruction.of("blob", "4", png(160, 120, Color.WHITE)),
                Instruction.of("end", "4"),
                Instruction.of("move", "1", "0", "480", "0", "1"),
                Instruction.of("shade", "1", "128"),
                Instruction.of("size", "20", "640", "480"), // beyond the layers painted: ignored
                Instruction.of("cursor", "0", "0", "-1", "0", "0", "16", "16"),
                Instruction.of("mouse", "10", "10", "0", "1"),
                Instruction.of("sync", "1234", "1"),
                Instruction.of("img", "3", "14", "0", "image/png", "0", "0")); // the next frame: not read
    }

    static Stream<Arguments> splits() throws IOException {
        byte[] wire = encode(joinedScreen());
        List<Arguments> out = new ArrayList<>();
        for (int split = 1; split < wire.length; split += Math.max(1, wire.length / 97)) {
            out.add(Arguments.of(split));
        }
        return out.stream();
    }

    private static byte[] encode(List<Instruction> instructions) {
        StringBuilder text = new StringBuilder();
        instructions.forEach(i -> text.append(i.encode()));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "split at {0}")
    @MethodSource("splits")
    void theJoinedScreenIsPaintedWhereverTheStreamIsCut(int split) throws Exception {
        byte[] wire = encode(joinedScreen());
        DisplayPainter painter = new DisplayPainter();
        GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
        boolean[] done = {false};
        int stopped = parser.feedUntil(wire, 0, split, i -> !(done[0] = painter.feed(i)));
        if (!done[0]) {
            stopped = parser.feedUntil(wire, split, wire.length - split, i -> !(done[0] = painter.feed(i)));
        }
        assertTrue(done[0], "no sync seen");
        assertTrue(stopped < wire.length, "read past the first sync");
        BufferedImage thumbnail = ImageIO.read(new ByteArrayInputStream(painter.paint(320)));
        assertEquals(320, thumbnail.getWidth());
        assertEquals(240, thumbnail.getHeight());
        assertNear(Color.RED, thumbnail.getRGB(40, 120));
        assertNear(Color.BLACK, thumbnail.getRGB(200, 60));
        assertNear(Color.BLUE, thumbnail.getRGB(280, 220));
        assertNear(new Color(128, 128, 128), thumbnail.getRGB(280, 20));
    }

    /** A scroll: guacd copies a part of a layer onto itself, overlapping. */
    @Test
    void aCopyWithinTheScreenMovesItsPixels() throws Exception {
        DisplayPainter painter = new DisplayPainter();
        painter.feed(Instruction.of("size", "0", "640", "480"));
        painter.feed(Instruction.of("img", "1", "14", "0", "image/png", "0", "0"));
        painter.feed(Instruction.of("blob", "1", png(320, 480, Color.RED)));
        painter.feed(Instruction.of("end", "1"));
        painter.feed(Instruction.of("copy", "0", "0", "0", "480", "480", "14", "0", "160", "0"));
        painter.feed(Instruction.of("sync", "1", "1"));
        BufferedImage thumbnail = ImageIO.read(new ByteArrayInputStream(painter.paint(320)));
        assertNear(Color.RED, thumbnail.getRGB(40, 120));
        assertNear(Color.RED, thumbnail.getRGB(200, 120)); // red moved 160 px right: 80..240 in the thumbnail
        assertNear(Color.BLACK, thumbnail.getRGB(300, 120));
    }

    @Test
    void aSmallScreenIsNotScaledUp() throws Exception {
        DisplayPainter painter = new DisplayPainter();
        painter.feed(Instruction.of("size", "0", "200", "100"));
        painter.feed(Instruction.of("sync", "1", "1"));
        BufferedImage thumbnail = ImageIO.read(new ByteArrayInputStream(painter.paint(320)));
        assertEquals(200, thumbnail.getWidth());
    }

    @Test
    void whatADisplayCannotBeIsRefused() throws Exception {
        assertThrows(IllegalStateException.class, () -> new DisplayPainter().feed(Instruction.of("size", "0",
                "100000", "10")));
        assertThrows(IllegalStateException.class, () -> new DisplayPainter().feed(Instruction.of("size", "0",
                "x", "10")));
        assertThrows(IllegalStateException.class, () -> new DisplayPainter().feed(Instruction.of("error",
                "Aborted. See logs.", "519")));
        DisplayPainter noScreen = new DisplayPainter();
        noScreen.feed(Instruction.of("sync", "1", "1"));
        assertThrows(IOException.class, () -> noScreen.paint(320));

        DisplayPainter flood = new DisplayPainter();
        flood.feed(Instruction.of("img", "1", "14", "0", "image/png", "0", "0"));
        String chunk = Base64.getEncoder().encodeToString(new byte[48 * 1024]);
        IllegalStateException tooMuch = assertThrows(IllegalStateException.class, () -> {
            for (int i = 0; i <= DisplayPainter.MAX_IMAGE_BYTES / (48 * 1024); i++) {
                flood.feed(Instruction.of("blob", "1", chunk));
            }
        });
        assertTrue(tooMuch.getMessage().contains("bytes of pictures"), tooMuch.getMessage());

        DisplayPainter notAPicture = new DisplayPainter();
        notAPicture.feed(Instruction.of("size", "0", "64", "64"));
        notAPicture.feed(Instruction.of("img", "1", "14", "0", "image/png", "0", "0"));
        notAPicture.feed(Instruction.of("blob", "1", Base64.getEncoder().encodeToString("not a png".getBytes(
                StandardCharsets.UTF_8))));
        notAPicture.feed(Instruction.of("end", "1"));
        notAPicture.feed(Instruction.of("sync", "1", "1"));
        assertThrows(IOException.class, () -> notAPicture.paint(320));
    }

    private static void assertNear(Color expected, int rgb) {
        Color seen = new Color(rgb);
        int off = Math.abs(seen.getRed() - expected.getRed()) + Math.abs(seen.getGreen() - expected.getGreen())
                + Math.abs(seen.getBlue() - expected.getBlue());
        assertTrue(off < 60, () -> "expected " + expected + ", saw " + seen);
    }
}
