package org.farmgate.bench.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.farmgate.model.Json;
import org.farmgate.model.Protocol;

/**
 * One load run: where, how many sessions, how fast they come, how long they stay, what the user does meanwhile.
 * Every loop is bounded: by {@code sessions} in count and by ramp + hold + {@code grace} in time.
 */
public record LoadOptions(List<String> baseUrls, String token, Protocol protocol, String targetHost, int targetPort,
        String username, String password, int sessions, Duration ramp, Duration hold, double mouseHz, double keysHz,
        double pingHz, Duration grace, String csv, String json) {

    public LoadOptions {
        if (baseUrls.isEmpty() || baseUrls.stream().anyMatch(u -> !u.startsWith("http://") && !u.startsWith("https://"))) {
            throw new IllegalArgumentException("--base-url must be one or more http(s):// URLs, comma separated");
        }
        if (sessions < 1 || sessions > 100_000) {
            throw new IllegalArgumentException("--sessions must be 1-100000, got " + sessions);
        }
        if (mouseHz < 0 || keysHz < 0 || pingHz < 0 || mouseHz > 1000 || keysHz > 1000 || pingHz > 1000) {
            throw new IllegalArgumentException("--mouse-hz, --keys-hz and --ping-hz must be 0-1000");
        }
    }

    public static LoadOptions parse(Map<String, String> o) {
        String token = o.getOrDefault("token", System.getenv("API_KEY"));
        if (token == null) {
            throw new IllegalArgumentException("--token (or API_KEY in the environment) is required");
        }
        return new LoadOptions(
                Arrays.stream(o.getOrDefault("base-url", "http://127.0.0.1:8080").split(",")).map(String::trim)
                        .map(u -> u.replaceAll("/+$", "")).toList(),
                token, Protocol.parse(o.getOrDefault("protocol", "ssh")), o.getOrDefault("target-host", "127.0.0.1"),
                Integer.parseInt(o.getOrDefault("target-port", "22")), o.getOrDefault("target-user", "bench"),
                o.getOrDefault("target-password", "bench"), Integer.parseInt(o.getOrDefault("sessions", "10")),
                Duration.ofMillis((long) (Double.parseDouble(o.getOrDefault("ramp-secs", "5")) * 1000)),
                Duration.ofMillis((long) (Double.parseDouble(o.getOrDefault("hold-secs", "10")) * 1000)),
                Double.parseDouble(o.getOrDefault("mouse-hz", "10")), Double.parseDouble(o.getOrDefault("keys-hz", "2")),
                Double.parseDouble(o.getOrDefault("ping-hz", "1")),
                Duration.ofSeconds(Long.parseLong(o.getOrDefault("grace-secs", "30"))), o.get("csv"), o.get("json"));
    }

    /** The API body of one session; the same for every virtual user. */
    String sessionBody(int width, int height) {
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("session_type", protocol.name().toLowerCase(java.util.Locale.ROOT));
        body.put("hostname", targetHost);
        body.put("port", targetPort);
        body.put("username", username);
        body.put("password", password);
        body.put("width", width);
        body.put("height", height);
        try {
            return Json.mapper().writeValueAsString(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
