package org.farmgate.model;

import java.io.Serializable;

/**
 * A remote display's size. Out-of-range requests are clamped rather than refused, as rustguac does, to bounds that
 * guacd and the browser both handle (rustguac's: 640-8192 by 480-8192, 16-384 dpi).
 */
public record DisplaySize(int width, int height, int dpi) implements Serializable {

    public static final DisplaySize DEFAULT = new DisplaySize(1024, 768, 96);

    public static DisplaySize clamped(int width, int height, int dpi) {
        return new DisplaySize(clamp(width, 640, 8192), clamp(height, 480, 8192), clamp(dpi, 16, 384));
    }

    public double megapixels() {
        return (double) width * height / 1_000_000.0;
    }

    private static int clamp(int value, int min, int max) {
        return Math.max(min, Math.min(max, value));
    }
}
