package org.farmgate.bench.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Json;
import org.farmgate.model.Protocol;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * One load run: where, how many sessions, how fast they come, how long they stay, what the user does meanwhile.
 * Every loop is bounded: by {@code sessions} in count and by ramp + hold + {@code grace} in time.
 */
public record LoadOptions(List<String> baseUrls, String token, Protocol protocol, String targetHost, int targetPort,
        String username, String password, DisplaySize display, Map<String, String> arguments, int sessions,
        Duration ramp, Duration hold, double mouseHz, double keysHz, double pingHz, Duration grace, String csv,
        String json) {

    public LoadOptions {
        arguments = Map.copyOf(arguments);
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

    /** @throws IllegalArgumentException naming the option whose value is wrong, or the unknown option */
    public static LoadOptions parse(String... args) {
        Flags flags = new Flags();
        try {
            new CommandLine(flags).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return flags.options();
    }

    /** The command line of a run, as {@link LoadClientMain} takes it. */
    static final class Flags {

        @Option(names = "--base-url", defaultValue = "http://127.0.0.1:8080", description = "URL[,URL...], in turn")
        private String baseUrls;
        @Option(names = "--token", defaultValue = "${env:API_KEY}", description = "API key; default: $API_KEY")
        private String token;
        @Option(names = "--protocol", defaultValue = "ssh", description = "ssh, rdp or vnc") private String protocol;
        @Option(names = "--target-host", defaultValue = "127.0.0.1", description = "the console host guacd reaches")
        private String targetHost;
        @Option(names = "--target-port", defaultValue = "22", description = "the console's port")
        private int targetPort;
        @Option(names = "--target-user", defaultValue = "bench", description = "the console's user")
        private String username;
        @Option(names = "--target-password", defaultValue = "bench", description = "the console's password")
        private String password;
        @Option(names = "--width", defaultValue = "1024", description = "the display's width") private int width;
        @Option(names = "--height", defaultValue = "768", description = "the display's height") private int height;
        @Option(names = "--argument", paramLabel = "NAME=VALUE", description = "a guacd argument of every session "
                + "(its JSON field), e.g. command=top; repeatable")
        private Map<String, String> arguments = new LinkedHashMap<>();
        @Option(names = "--sessions", defaultValue = "10", description = "virtual users, one session each")
        private int sessions;
        @Option(names = "--ramp-secs", defaultValue = "5", description = "over which the users start, evenly")
        private double rampSecs;
        @Option(names = "--hold-secs", defaultValue = "10", description = "how long each user keeps its session")
        private double holdSecs;
        @Option(names = "--mouse-hz", defaultValue = "10", description = "mouse moves per second per user")
        private double mouseHz;
        @Option(names = "--keys-hz", defaultValue = "2", description = "key strokes per second per user")
        private double keysHz;
        @Option(names = "--ping-hz", defaultValue = "1", description = "tunnel pings per second per user")
        private double pingHz;
        @Option(names = "--grace-secs", defaultValue = "30", description = "how long past ramp + hold to wait")
        private long graceSecs;
        @Option(names = "--csv", description = "a row per session into this file") private String csv;
        @Option(names = "--json", description = "the summary into this file") private String json;

        LoadOptions options() {
            if (token == null) {
                throw new IllegalArgumentException("--token (or API_KEY in the environment) is required");
            }
            return new LoadOptions(Arrays.stream(baseUrls.split(",")).map(String::trim)
                    .map(u -> u.replaceAll("/+$", "")).toList(), token, Protocol.parse(protocol), targetHost,
                    targetPort, username, password, new DisplaySize(width, height, DisplaySize.DEFAULT.dpi()),
                    arguments, sessions, Duration.ofMillis((long) (rampSecs * 1000)),
                    Duration.ofMillis((long) (holdSecs * 1000)), mouseHz, keysHz, pingHz, Duration.ofSeconds(graceSecs),
                    csv, json);
        }
    }

    /** The API body of one session; the same for every virtual user. */
    String sessionBody() {
        Map<String, Object> body = new LinkedHashMap<>(arguments);
        body.put("session_type", protocol.name().toLowerCase(Locale.ROOT));
        body.put("hostname", targetHost);
        body.put("port", targetPort);
        body.put("username", username);
        body.put("password", password);
        body.put("width", display.width());
        body.put("height", display.height());
        try {
            return Json.mapper().writeValueAsString(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
