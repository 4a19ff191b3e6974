package org.farmgate.node.thumbnail;

import java.awt.AlphaComposite;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.imageio.ImageReadParam;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import org.farmgate.protocol.Instruction;

/**
 * Paints what guacd shows a user who joins a connection, up to its first {@code sync}: guacd 1.6 sends a joining
 * user each layer's whole picture as PNG ({@code guac_display_dup}), where it is ({@code move}) and how opaque
 * ({@code shade}), then {@code sync}. The visible layers are painted and stacked as guacamole-common-js stacks
 * them: the default layer (0) is the screen, each other layer sits on its parent at its position, by depth (an SSH
 * terminal's text is layer 1 on layer 0). Buffers (negative layers: caches, the cursor) are not part of the picture.
 *
 * <p>Two halves, so that no event loop decodes an image: {@link #feed} only collects what to paint (on the event
 * loop, cheap), {@link #paint} decodes and draws (on a worker). Everything it keeps is bounded: layers and their
 * sizes, the bytes of the pictures, the number of steps; guacd is trusted, but a bug there must not cost a node its
 * heap.
 */
final class DisplayPainter {

    /** Larger than any display the gateway lets a session have. */
    static final int MAX_SIDE = 8192;
    static final int MAX_IMAGE_BYTES = 32 * 1024 * 1024;
    static final int MAX_STEPS = 100_000;
    /** Layers painted; guacd's SSH terminal uses three, RDP one, and more are ignored. */
    static final int MAX_LAYERS = 16;

    static {
        ImageIO.setUseCache(false); // else every decode may spool through a temporary file
    }

    private sealed interface Step {
        int layer();
    }

    private record Resize(int layer, int width, int height) implements Step {
    }

    private record Fill(int layer, int x, int y, int width, int height, Color color) implements Step {
    }

    private record Picture(int layer, int x, int y, byte[] bytes) implements Step {
    }

    private record Copy(int layer, int sx, int sy, int width, int height, int dx, int dy) implements Step {
    }

    /** Where a layer is shown: on its parent, at a position and depth, with an opacity (guacd's last word). */
    private static final class Place {
        int parent;
        int x;
        int y;
        int z;
        int opacity = 255;
    }

    private final List<Step> steps = new ArrayList<>();
    private final Map<Integer, Place> places = new HashMap<>();
    /** Open image streams of visible layers, by stream index: their bytes so far, and where they go. */
    private final Map<String, ByteArrayOutputStream> streams = new HashMap<>();
    private final Map<String, int[]> targets = new HashMap<>();
    private final Base64.Decoder base64 = Base64.getDecoder();
    private int[] pendingRect;
    private long imageBytes;
    private boolean done;

    /**
     * Takes one instruction from guacd.
     *
     * @return whether the picture is complete (the first {@code sync})
     * @throws IllegalStateException when guacd refuses, or sends more than a display can hold
     */
    boolean feed(Instruction instruction) {
        if (done) {
            return true;
        }
        List<String> a = instruction.args();
        switch (instruction.opcode()) {
            case "sync" -> done = true;
            case "error" -> throw new IllegalStateException("guacd refused the join: " + (a.isEmpty() ? "" : a.get(0)));
            case "size" -> {
                Integer layer = a.size() >= 3 ? visible(a.get(0)) : null;
                if (layer != null) {
                    int width = number(a.get(1));
                    int height = number(a.get(2));
                    if (width < 0 || height < 0 || width > MAX_SIDE || height > MAX_SIDE) {
                        throw new IllegalStateException("a layer of " + a.get(1) + "x" + a.get(2));
                    }
                    add(new Resize(layer, width, height));
                }
            }
            case "move" -> {
                Integer layer = a.size() >= 5 ? visible(a.get(0)) : null;
                if (layer != null && layer > 0) {
                    Place place = places.computeIfAbsent(layer, l -> new Place());
                    place.parent = number(a.get(1));
                    place.x = number(a.get(2));
                    place.y = number(a.get(3));
                    place.z = number(a.get(4));
                }
            }
            case "shade" -> {
                Integer layer = a.size() >= 2 ? visible(a.get(0)) : null;
                if (layer != null && layer > 0) {
                    places.computeIfAbsent(layer, l -> new Place()).opacity = Math.max(0, Math.min(255,
                            number(a.get(1))));
                }
            }
            case "img" -> {
                Integer layer = a.size() >= 6 ? visible(a.get(2)) : null;
                if (layer != null && (a.get(3).equals("image/png") || a.get(3).equals("image/jpeg"))) {
                    streams.put(a.get(0), new ByteArrayOutputStream());
                    targets.put(a.get(0), new int[] {layer, number(a.get(4)), number(a.get(5))});
                }
            }
            case "blob" -> {
                ByteArrayOutputStream bytes = a.size() >= 2 ? streams.get(a.get(0)) : null;
                if (bytes != null) {
                    byte[] chunk = base64.decode(a.get(1));
                    imageBytes += chunk.length;
                    if (imageBytes > MAX_IMAGE_BYTES) {
                        throw new IllegalStateException("more than " + MAX_IMAGE_BYTES + " bytes of pictures");
                    }
                    bytes.writeBytes(chunk);
                }
            }
            case "end" -> {
                ByteArrayOutputStream bytes = a.isEmpty() ? null : streams.remove(a.get(0));
                if (bytes != null) {
                    int[] at = targets.remove(a.get(0));
                    add(new Picture(at[0], at[1], at[2], bytes.toByteArray()));
                }
            }
            case "rect" -> {
                Integer layer = a.size() >= 5 ? visible(a.get(0)) : null;
                pendingRect = layer == null ? null : new int[] {layer, number(a.get(1)), number(a.get(2)),
                        number(a.get(3)), number(a.get(4))};
            }
            case "cfill" -> {
                if (pendingRect != null && a.size() >= 6 && String.valueOf(pendingRect[0]).equals(a.get(1))) {
                    add(new Fill(pendingRect[0], pendingRect[1], pendingRect[2], pendingRect[3], pendingRect[4],
                            new Color(channel(a.get(2)), channel(a.get(3)), channel(a.get(4)), channel(a.get(5)))));
                }
                pendingRect = null;
            }
            case "copy" -> {
                Integer layer = a.size() >= 9 ? visible(a.get(6)) : null;
                if (layer != null && a.get(0).equals(a.get(6))) { // within one layer (a scroll)
                    add(new Copy(layer, number(a.get(1)), number(a.get(2)), number(a.get(3)), number(a.get(4)),
                            number(a.get(7)), number(a.get(8))));
                }
            }
            default -> {
                // the cursor, audio, buffers: not part of the picture
            }
        }
        return done;
    }

    /** A layer that is part of the picture: 0 to {@link #MAX_LAYERS}{@code - 1}; null for buffers and the rest. */
    private static Integer visible(String layer) {
        int index = number(layer);
        return index >= 0 && index < MAX_LAYERS ? index : null;
    }

    private void add(Step step) {
        if (steps.size() >= MAX_STEPS) {
            throw new IllegalStateException("more than " + MAX_STEPS + " drawing steps before the first sync");
        }
        steps.add(step);
    }

    /**
     * The screen, scaled to {@code width} pixels across (never up), as JPEG. Blocks: decodes every picture.
     *
     * <p>Painted at a reduced scale from the start: every picture is decoded with source subsampling (every
     * {@code factor}-th pixel), which skips most of the work of a full-size decode and of full-size canvases, and
     * only the last, small step is filtered. Every layer is clipped to the screen's size, so memory is bounded by
     * the screen's. Measured by {@code thumbnail.ThumbnailBenchmark}.
     *
     * @throws IOException when a picture cannot be decoded, or there is no screen yet
     */
    byte[] paint(int width) throws IOException {
        Resize screen = steps.stream().filter(s -> s instanceof Resize r && r.layer() == 0).map(Resize.class::cast)
                .findFirst().orElseThrow(() -> new IOException("guacd showed no screen before its first sync"));
        int factor = Math.max(1, screen.width() / width);
        int maxWidth = up(Math.max(screen.width(), 1), factor);
        int maxHeight = up(Math.max(screen.height(), 1), factor);
        Map<Integer, BufferedImage> layers = new HashMap<>();
        for (Step step : steps) {
            if (step instanceof Resize resize) {
                layers.put(resize.layer(), resized(layers.get(resize.layer()), Math.min(maxWidth,
                        up(resize.width(), factor)), Math.min(maxHeight, up(resize.height(), factor)),
                        resize.layer() == 0));
                continue;
            }
            BufferedImage canvas = layers.get(step.layer());
            if (canvas == null) {
                continue; // drawing on a layer that has no size: nothing to draw on
            }
            Graphics2D g = canvas.createGraphics();
            try {
                draw(g, canvas, step, factor);
            } finally {
                g.dispose();
            }
        }
        BufferedImage composed = layers.get(0); // the children are drawn onto the screen itself: it is done with
        Graphics2D g = composed.createGraphics();
        try {
            stackChildren(g, layers, 0, 0, 0, 1f, factor, 0);
        } finally {
            g.dispose();
        }
        return jpeg(scaled(composed, width));
    }

    private static void draw(Graphics2D g, BufferedImage canvas, Step step, int factor) throws IOException {
        if (step instanceof Fill fill) {
            g.setComposite(AlphaComposite.Src);
            g.setColor(fill.color());
            g.fillRect(fill.x() / factor, fill.y() / factor, up(fill.width(), factor), up(fill.height(), factor));
        } else if (step instanceof Picture picture) {
            g.drawImage(decode(picture.bytes(), factor), picture.x() / factor, picture.y() / factor, null);
        } else if (step instanceof Copy copy) {
            int sx = clamp(copy.sx() / factor, canvas.getWidth());
            int sy = clamp(copy.sy() / factor, canvas.getHeight());
            int w = Math.max(1, Math.min(up(copy.width(), factor), canvas.getWidth() - sx));
            int h = Math.max(1, Math.min(up(copy.height(), factor), canvas.getHeight() - sy));
            g.copyArea(sx, sy, w, h, copy.dx() / factor - sx, copy.dy() / factor - sy); // overlap is its business
        }
    }

    /**
     * Draws the children of {@code layer} (itself at {@code x}, {@code y}) by depth, each with its own children
     * over it, as the browser stacks them.
     */
    private void stackChildren(Graphics2D g, Map<Integer, BufferedImage> layers, int layer, int x, int y,
            float alpha, int factor, int depth) {
        if (depth >= MAX_LAYERS) {
            return; // a cycle of parents guacd would never send
        }
        places.entrySet().stream().filter(e -> e.getValue().parent == layer && e.getKey() != layer)
                .sorted(Comparator.comparingInt(e -> e.getValue().z)).forEach(child -> {
                    BufferedImage canvas = layers.get(child.getKey());
                    if (canvas == null) {
                        return;
                    }
                    Place place = child.getValue();
                    int cx = x + place.x / factor;
                    int cy = y + place.y / factor;
                    float opacity = alpha * place.opacity / 255f;
                    g.setComposite(AlphaComposite.getInstance(AlphaComposite.SRC_OVER, opacity));
                    g.drawImage(canvas, cx, cy, null);
                    stackChildren(g, layers, child.getKey(), cx, cy, opacity, factor, depth + 1);
                });
    }

    /** {@code value / factor}, rounded up: a thin rectangle stays at least one pixel. */
    private static int up(int value, int factor) {
        return (value + factor - 1) / factor;
    }

    /**
     * Layers are transparent until drawn on, as in the browser; the screen's own layer is opaque (black until drawn
     * on), which keeps its drawing on Java2D's fast paths.
     */
    private static BufferedImage resized(BufferedImage old, int width, int height, boolean opaque) {
        BufferedImage out = new BufferedImage(Math.max(1, width), Math.max(1, height), opaque
                ? BufferedImage.TYPE_INT_RGB : BufferedImage.TYPE_INT_ARGB);
        if (old != null) {
            Graphics2D g = out.createGraphics();
            g.drawImage(old, 0, 0, null);
            g.dispose();
        }
        return out;
    }

    /** Decodes a picture whose size is checked first: a small PNG must not claim a huge canvas. */
    private static BufferedImage decode(byte[] bytes, int factor) throws IOException {
        try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(bytes))) {
            Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
            if (!readers.hasNext()) {
                throw new IOException("a picture in no format this node reads");
            }
            ImageReader reader = readers.next();
            try {
                reader.setInput(in, true, true);
                if (reader.getWidth(0) > MAX_SIDE || reader.getHeight(0) > MAX_SIDE) {
                    throw new IOException("a picture of " + reader.getWidth(0) + "x" + reader.getHeight(0));
                }
                ImageReadParam param = reader.getDefaultReadParam();
                param.setSourceSubsampling(factor, factor, 0, 0);
                return reader.read(0, param);
            } finally {
                reader.dispose();
            }
        }
    }

    private static BufferedImage scaled(BufferedImage screen, int width) {
        if (screen.getWidth() <= width) {
            return screen;
        }
        int height = Math.max(1, (int) Math.round((double) screen.getHeight() * width / screen.getWidth()));
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
        g.drawImage(screen, 0, 0, width, height, null);
        g.dispose();
        return out;
    }

    private static byte[] jpeg(BufferedImage image) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        if (!ImageIO.write(image, "jpeg", out)) {
            throw new IOException("no JPEG writer in this JVM");
        }
        return out.toByteArray();
    }

    private static int clamp(int value, int size) {
        return Math.max(0, Math.min(value, size - 1));
    }

    private static int number(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("'" + text + "' where guacd sends a number");
        }
    }

    private static int channel(String text) {
        return Math.max(0, Math.min(255, number(text)));
    }
}
