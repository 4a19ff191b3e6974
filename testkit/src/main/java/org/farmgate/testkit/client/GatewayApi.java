package org.farmgate.testkit.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.farmgate.model.Json;

/** The few API calls a load client makes, blocking (bench threads are never event loops). */
public final class GatewayApi {

    /** A created session: where to attach, and with which single-use ticket. */
    public record Attach(String sessionId, String wsPath) {
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;
    private final String token;

    public GatewayApi(String baseUrl, String token) {
        this.baseUrl = baseUrl;
        this.token = token;
    }

    /** An answer of any status, with its JSON body (or null when it has none). */
    public record Answer(int status, JsonNode body) {
    }

    public JsonNode post(String path, String body) throws IOException, InterruptedException {
        Answer answer = postAnswer(path, body);
        if (answer.status() / 100 != 2) {
            throw new IOException("POST " + path + " answered " + answer.status() + ": " + answer.body());
        }
        return answer.body();
    }

    /** A POST whose non-2xx answers are results too. */
    public Answer postAnswer(String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body().isEmpty() ? null
                : Json.mapper().readTree(response.body()));
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return Json.mapper().readTree(response.body());
    }

    /** A DELETE; its status. */
    public int delete(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .DELETE().build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** Creates a session and a ticket: the path to open, ticket included. */
    public Attach createSession(String body) throws IOException, InterruptedException {
        JsonNode session = post("/api/sessions", body);
        String ticket = post("/api/ws-ticket", null).get("ticket").asText();
        return new Attach(session.get("session_id").asText(), session.get("ws_url").asText() + "?ticket=" + ticket);
    }
}
