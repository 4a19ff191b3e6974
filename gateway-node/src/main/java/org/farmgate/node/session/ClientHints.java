package org.farmgate.node.session;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;

/**
 * What the browser tells the tunnel about itself when it connects, in the query parameters Apache Guacamole's
 * client uses ({@code GUAC_AUDIO}, {@code GUAC_VIDEO}, {@code GUAC_IMAGE}, {@code GUAC_TIMEZONE}). Absent values
 * fall back to what a browser always supports.
 */
public record ClientHints(List<String> audio, List<String> video, List<String> image, String timezone) {

    public static final List<String> DEFAULT_AUDIO = List.of("audio/L8", "audio/L16");
    public static final List<String> DEFAULT_IMAGE = List.of("image/png", "image/jpeg", "image/webp");

    public static final ClientHints NONE = new ClientHints(List.of(), List.of(), List.of(), null);

    public ClientHints {
        audio = sanitize(audio);
        video = sanitize(video);
        image = sanitize(image);
        timezone = validZone(timezone);
    }

    public List<String> audioOrDefault() {
        return audio.isEmpty() ? DEFAULT_AUDIO : audio;
    }

    public List<String> imageOrDefault() {
        return image.isEmpty() ? DEFAULT_IMAGE : image;
    }

    /** Mimetypes are short tokens; anything else is dropped rather than passed to guacd. */
    private static List<String> sanitize(List<String> values) {
        return values.stream()
                .filter(value -> value.length() <= 100 && value.matches("[A-Za-z0-9!#$&^_.+;=,/-]+"))
                .limit(16)
                .toList();
    }

    private static String validZone(String zone) {
        if (zone == null || zone.isBlank() || zone.length() > 64) {
            return null;
        }
        try {
            return ZoneId.of(zone).getId();
        } catch (DateTimeException e) {
            return null;
        }
    }
}
