package org.farmgate.bench.vault;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Writes a test address book into Vault KV v2 in rustguac's layout, named as rustguac's own populate script
 * names it: folders {@code bench-folder-NN} (each with a {@code .config}), entries {@code rdp-host-FF-EEE}, RDP to
 * {@code 10.99.F.E} as {@code benchFF} / {@code bench}.
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.vault.VaultPopulate --vault http://127.0.0.1:8200
 * --token TOKEN [--mount secret] [--base rustguac] [--entries 982] [--folders 21]}
 */
@Command(name = "vault-populate", mixinStandardHelpOptions = true, description = "Writes a test address book to Vault.")
public final class VaultPopulate implements Callable<Integer> {

    @Option(names = "--vault", required = true, paramLabel = "URL", description = "Vault's address")
    private String vault;
    @Option(names = "--token", required = true, description = "a Vault token that may write there")
    private String token;
    @Option(names = "--mount", defaultValue = "secret", description = "the KV v2 engine's mount")
    private String mount;
    @Option(names = "--base", defaultValue = "rustguac", description = "the path the book is written under")
    private String base;
    @Option(names = "--entries", defaultValue = "982", description = "connection entries, spread over the folders")
    private int entries;
    @Option(names = "--folders", defaultValue = "21", description = "shared folders")
    private int folders;

    public static void main(String[] args) {
        System.exit(new CommandLine(new VaultPopulate()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        System.out.println("wrote " + populate(vault, token, mount, base, entries, folders) + " secrets");
        return 0;
    }

    /** @return how many secrets were written (entries and folder configs) */
    public static int populate(String vault, String token, String mount, String base, int entries, int folders)
            throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        int written = 0;
        for (int f = 1; f <= folders; f++) {
            String folder = String.format("bench-folder-%02d", f);
            write(http, vault, token, mount, base + "/shared/" + folder + "/.config",
                    "{\"allowed_groups\":[\"bench\"],\"description\":\"Bench folder " + f + "\","
                            + "\"inherit_from_parent\":false}");
            written++;
        }
        for (int i = 0; i < entries; i++) {
            int f = i % folders + 1;
            int e = i / folders + 1;
            String name = String.format("rdp-host-%02d-%03d", f, e);
            write(http, vault, token, mount, base + "/shared/" + String.format("bench-folder-%02d", f) + "/" + name,
                    String.format("{\"type\":\"rdp\",\"hostname\":\"10.99.%d.%d\",\"port\":3389,\"username\":"
                            + "\"bench%02d\",\"password\":\"bench\",\"security\":\"any\",\"ignore_cert\":true,"
                            + "\"display_name\":\"RDP Host %d-%d\"}", f, e, f, f, e));
            written++;
        }
        return written;
    }

    private static void write(HttpClient http, String vault, String token, String mount, String path, String data)
            throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(vault + "/v1/" + mount
                        + "/data/" + path)).header("X-Vault-Token", token)
                .POST(HttpRequest.BodyPublishers.ofString("{\"data\":" + data + "}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("Vault answered " + response.statusCode() + " for " + path + ": " + response.body());
        }
    }
}
