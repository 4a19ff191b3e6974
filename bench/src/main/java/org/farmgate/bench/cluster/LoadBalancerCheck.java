package org.farmgate.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.model.Json;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.WireLimits;

/**
 * Sessions through a load balancer, end to end: create each through it, attach each WebSocket through it (with
 * the routing hint or without), wait for the first frame and a ping's echo. With HAProxy's log it also tells, per
 * WebSocket, whether the balancer delivered it to the owning node or to another one that relayed it.
 */
public final class LoadBalancerCheck {

    /** What the check saw. */
    public record Result(int sessions, int attached, int direct, int relayed) {
    }

    private static final Pattern WS_LINE = Pattern.compile("nodes/(\\S+) (\\d+) GET /ws/([0-9a-f-]{36})");

    private LoadBalancerCheck() {
    }

    public static Result run(String entryUrl, String token, int sessions, boolean hint, Path haproxyLog)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        Vertx vertx = Vertx.vertx();
        WebSocketClient client = vertx.createWebSocketClient();
        URI entry = URI.create(entryUrl);
        Map<String, String> owners = new HashMap<>();
        int attached = 0;
        try {
            for (int i = 0; i < sessions; i++) {
                HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(entryUrl + "/api/sessions"))
                        .header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"hostname\":\"127.0.0.1\",\"username\":\"lb\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (created.statusCode() != 201) {
                    throw new IOException("create answered " + created.statusCode() + ": " + created.body());
                }
                JsonNode session = Json.mapper().readTree(created.body());
                String id = session.get("session_id").asText();
                String owner = session.get("node_id").asText();
                owners.put(id, owner);
                String ticket = Json.mapper().readTree(http.send(HttpRequest.newBuilder(
                                URI.create(entryUrl + "/api/ws-ticket")).header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString())
                        .body()).get("ticket").asText();
                WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(entry.getHost())
                        .setPort(entry.getPort()).addSubProtocol("guacamole")
                        .setURI(session.get("ws_url").asText() + "?ticket=" + ticket + (hint ? "&node=" + owner : ""));
                if (hint) {
                    // what a browser sends back: the cookie the create response set for this session's path
                    String cookie = created.headers().firstValue("Set-Cookie").orElse("").split(";")[0];
                    options.setHeaders(MultiMap.caseInsensitiveMultiMap().add("Cookie", cookie));
                }
                if (attach(client, options)) {
                    attached++;
                }
            }
        } finally {
            client.close();
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        int direct = 0;
        int relayed = 0;
        if (haproxyLog != null) {
            Thread.sleep(500); // HAProxy logs a tunnel when it ends
            Matcher m = WS_LINE.matcher(Files.readString(haproxyLog));
            while (m.find()) {
                String owner = owners.get(m.group(3));
                if (owner != null) {
                    if (owner.equals(m.group(1))) {
                        direct++;
                    } else {
                        relayed++;
                    }
                }
            }
        }
        return new Result(sessions, attached, direct, relayed);
    }

    /** True when the first sync and the echo of a ping arrive within 10 s. */
    private static boolean attach(WebSocketClient client, WebSocketConnectOptions options) throws Exception {
        CompletableFuture<Boolean> ok = new CompletableFuture<>();
        WebSocket ws = client.connect(options).await(10, TimeUnit.SECONDS);
        GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
        boolean[] synced = {false};
        ws.handler(data -> {
            try {
                parser.feed(data.getBytes(), instruction -> {
                    if (instruction.opcode().equals("sync") && !synced[0]) {
                        synced[0] = true;
                        ws.writeTextMessage("0.,4.ping,1.1;");
                    } else if (instruction.isInternal() && instruction.args().size() == 2) {
                        ok.complete(true);
                    } else if (instruction.opcode().equals("error")) {
                        ok.complete(false);
                    }
                });
            } catch (Exception e) {
                ok.complete(false);
            }
        });
        ws.closeHandler(ignored -> ok.complete(false));
        try {
            return ok.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } finally {
            ws.close();
        }
    }
}
