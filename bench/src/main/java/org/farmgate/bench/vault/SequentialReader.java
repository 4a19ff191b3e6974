package org.farmgate.bench.vault;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.farmgate.model.Json;

/**
 * Reads the address book the way rustguac does, one call after another: LIST the scope, then per folder its
 * {@code .config} and its LIST, then every entry. The baseline a parallel, cached load is measured against.
 */
public final class SequentialReader {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String vault;
    private final String token;
    private final String root;
    private final String prefix;
    private int calls;

    public SequentialReader(String vault, String token, String mount, String base) {
        this.vault = vault;
        this.token = token;
        this.root = "/v1/" + mount;
        this.prefix = base + "/shared";
    }

    /** @return the number of entries read */
    public int readAll() throws IOException, InterruptedException {
        calls = 0;
        int entries = 0;
        for (JsonNode folder : list(prefix)) {
            String name = folder.asText();
            if (!name.endsWith("/")) {
                continue;
            }
            String path = prefix + "/" + name.substring(0, name.length() - 1);
            get(path + "/.config");
            for (JsonNode key : list(path)) {
                if (!key.asText().equals(".config") && !key.asText().endsWith("/")) {
                    get(path + "/" + key.asText());
                    entries++;
                }
            }
        }
        return entries;
    }

    public int calls() {
        return calls;
    }

    private JsonNode list(String path) throws IOException, InterruptedException {
        return Json.mapper().readTree(call(root + "/metadata/" + path + "?list=true")).path("data").path("keys");
    }

    private void get(String path) throws IOException, InterruptedException {
        call(root + "/data/" + path);
    }

    private String call(String path) throws IOException, InterruptedException {
        calls++;
        return http.send(HttpRequest.newBuilder(URI.create(vault + path)).header("X-Vault-Token", token).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
