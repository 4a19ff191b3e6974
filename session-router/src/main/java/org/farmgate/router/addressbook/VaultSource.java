package org.farmgate.router.addressbook;

import io.github.jopenlibs.vault.SslConfig;
import io.github.jopenlibs.vault.Vault;
import io.github.jopenlibs.vault.VaultConfig;
import io.github.jopenlibs.vault.VaultException;
import io.github.jopenlibs.vault.json.JsonArray;
import io.github.jopenlibs.vault.json.JsonObject;
import io.github.jopenlibs.vault.json.JsonValue;
import io.github.jopenlibs.vault.response.AuthResponse;
import io.github.jopenlibs.vault.response.LogicalResponse;
import java.io.File;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.function.LongConsumer;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.protocol.GuacamoleStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The address book in HashiCorp Vault KV v2, in rustguac's layout, through the Vault Java Driver.
 *
 * <p>The driver blocks, so every call runs on {@code pool}, a bounded pool of its own; a load reads every folder's
 * {@code .config} and listing, then every entry, as many at once as the pool allows, where rustguac reads one
 * after another. A token obtained with AppRole is renewed before it expires, and a 403 makes one fresh login and
 * one retry (a token revoked or expired early).
 */
public final class VaultSource implements AddressBookSource {

    private static final Logger LOG = LoggerFactory.getLogger(VaultSource.class);

    private static final String CONFIG = ".config";

    private final VaultSettings settings;
    private final ExecutorService pool;
    private final LongConsumer callNanos;
    private final Clock clock;
    private final int mountDepth;
    private final SslConfig tls;
    private final HttpClient http;
    private volatile Vault vault;
    /** AppRole: log in on first use, so that a node starts even while Vault is down. */
    private volatile Instant renewAt;

    public VaultSource(VaultSettings settings, ExecutorService pool, LongConsumer callNanos, Clock clock)
            throws AddressBookException {
        this.settings = settings;
        this.pool = pool;
        this.callNanos = callNanos;
        this.clock = clock;
        this.mountDepth = settings.mount().split("/").length;
        this.tls = tls(settings);
        this.http = httpClient(settings, tls);
        this.vault = connect(settings.token());
        this.renewAt = settings.token() == null ? Instant.MIN : Instant.MAX;
    }

    /**
     * One client for every call. Left to itself the driver builds a new {@link HttpClient} per request: a new
     * connection and selector thread each time, which cost more than the call itself on a fast network and made a
     * parallel load no faster than a sequential one (see bench/RESULTS.md, issue 4).
     */
    private static HttpClient httpClient(VaultSettings settings, SslConfig tls) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.timeout());
        if (tls != null) {
            builder.sslContext(tls.getSslContext());
        }
        return builder.build();
    }

    private static SslConfig tls(VaultSettings settings) throws AddressBookException {
        if (settings.caCertPem() == null) {
            return null;
        }
        try {
            return new SslConfig().pemFile(new File(settings.caCertPem())).build();
        } catch (VaultException e) {
            throw new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "VAULT_CACERT " + settings.caCertPem() + " is unusable: "
                    + e.getMessage());
        }
    }

    private Vault connect(String token) throws AddressBookException {
        try {
            VaultConfig config = new VaultConfig().address(settings.address()).engineVersion(2)
                    .prefixPathDepth(mountDepth).httpClient(http)
                    .openTimeout((int) Math.max(1, settings.timeout().toSeconds()))
                    .readTimeout((int) Math.max(1, settings.timeout().toSeconds()));
            if (token != null) {
                config.token(token);
            }
            if (settings.namespace() != null) {
                config.nameSpace(settings.namespace());
            }
            if (tls != null) {
                config.sslConfig(tls); // the driver's AppRole login builds its own client from this
            }
            return Vault.create(config.build(), 2);
        } catch (VaultException e) {
            throw new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "Vault at " + settings.address() + " is misconfigured: "
                    + e.getMessage());
        }
    }

    /** AppRole: a new token, and when to renew it (at two thirds of its lease). */
    private synchronized void login() throws AddressBookException {
        try {
            AuthResponse auth = timed(() -> vault.auth().loginByAppRole(settings.roleId(), settings.secretId()));
            vault = connect(auth.getAuthClientToken());
            long lease = auth.getAuthLeaseDuration();
            renewAt = lease > 0 ? clock.instant().plusSeconds(lease * 2 / 3) : Instant.MAX;
        } catch (VaultException e) {
            throw new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "Vault AppRole login failed: " + describe(e));
        }
    }

    private synchronized void renewIfDue() throws AddressBookException {
        if (settings.token() != null || clock.instant().isBefore(renewAt)) {
            return;
        }
        if (renewAt.equals(Instant.MIN)) {
            login();
            return;
        }
        try {
            AuthResponse renewed = timed(() -> vault.auth().renewSelf());
            long lease = renewed.getAuthLeaseDuration();
            renewAt = lease > 0 ? clock.instant().plusSeconds(lease * 2 / 3) : Instant.MAX;
        } catch (VaultException e) {
            LOG.info("Vault token renewal failed ({}); logging in again", describe(e));
            login(); // not renewable any more: start over
        }
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws VaultException;
    }

    private <T> T timed(Call<T> call) throws VaultException {
        long start = System.nanoTime();
        try {
            return call.run();
        } finally {
            callNanos.accept(System.nanoTime() - start);
        }
    }

    /** One call, with a fresh login and one retry after a 403 when AppRole is in use. */
    private <T> T call(Call<T> call) throws AddressBookException {
        renewIfDue();
        try {
            T result = timed(call);
            if (result instanceof LogicalResponse response && response.getRestResponse().getStatus() == 403
                    && settings.token() == null) {
                login(); // the driver answered a refusal instead of throwing it: same cure
                return timed(call);
            }
            return result;
        } catch (VaultException e) {
            if (e.getHttpStatusCode() == 403 && settings.token() == null) {
                login();
                try {
                    return timed(call);
                } catch (VaultException again) {
                    throw failure(again);
                }
            }
            throw failure(e);
        }
    }

    private AddressBookException failure(VaultException e) {
        // Vault refusing the gateway is a configuration fault behind us, not an outage.
        GuacamoleStatus status = e.getHttpStatusCode() == 403 ? GuacamoleStatus.UPSTREAM_ERROR
                : GuacamoleStatus.UPSTREAM_UNAVAILABLE;
        return new AddressBookException(status, "Vault " + describe(e), e.getHttpStatusCode());
    }

    private static String describe(VaultException e) {
        return e.getHttpStatusCode() > 0 ? "answered " + e.getHttpStatusCode() + ": " + e.getMessage()
                : "is not reachable: " + e.getMessage();
    }

    private String path(String scope, String folderPath, String leaf) {
        StringBuilder out = new StringBuilder(settings.mount()).append('/').append(settings.base()).append('/')
                .append(scope);
        if (folderPath != null && !folderPath.isEmpty()) {
            out.append('/').append(folderPath);
        }
        if (leaf != null) {
            out.append('/').append(leaf);
        }
        return out.toString();
    }

    /** The keys under a path; empty when Vault has nothing there (404, which the driver answers with null). */
    private List<String> list(String path) throws AddressBookException {
        LogicalResponse response;
        try {
            response = call(() -> vault.logical().list(path));
        } catch (AddressBookException e) {
            if (e.upstreamStatus() == 404) {
                return List.of();
            }
            throw e;
        }
        check(response, path);
        List<String> keys = response == null ? null : response.getListData();
        return keys == null ? List.of() : keys;
    }

    /** A secret's data with JSON types kept, or null when there is none. */
    private Map<String, Object> read(String path) throws AddressBookException {
        LogicalResponse response;
        try {
            response = call(() -> vault.logical().read(path));
        } catch (AddressBookException e) {
            if (e.upstreamStatus() == 404) {
                return null;
            }
            throw e;
        }
        if (response == null || response.getRestResponse().getStatus() == 404) {
            return null;
        }
        check(response, path);
        JsonObject data = response.getDataObject();
        if (data == null || data.isEmpty()) {
            return null;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (JsonObject.Member member : data) {
            out.put(member.getName(), plain(member.getValue()));
        }
        return out;
    }

    private static Object plain(JsonValue value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isString()) {
            return value.asString();
        }
        if (value.isNumber()) {
            String text = value.toString();
            return text.contains(".") || text.contains("e") || text.contains("E") ? (Object) value.asDouble()
                    : (Object) value.asLong();
        }
        if (value.isArray()) {
            List<Object> out = new ArrayList<>();
            for (JsonValue item : value.asArray()) {
                out.add(plain(item));
            }
            return out;
        }
        if (value.isObject()) { // a field of objects, such as an entry's jump_hosts
            Map<String, Object> out = new LinkedHashMap<>();
            for (JsonObject.Member member : value.asObject()) {
                out.put(member.getName(), plain(member.getValue()));
            }
            return out;
        }
        return value.toString();
    }

    /**
     * Level by level: the listings and {@code .config}s of every folder of a level at once, then every entry of
     * the level at once. Only single Vault calls go to the pool, and this (caller's) thread does the waiting, so a
     * full pool can never wait on itself.
     */
    @Override
    public AddressBook load() throws AddressBookException {
        List<String> level = new ArrayList<>();
        for (String key : list(path("shared", null, null))) {
            if (key.endsWith("/")) {
                level.add(key.substring(0, key.length() - 1));
            }
        }
        List<Folder> folders = new ArrayList<>();
        while (!level.isEmpty()) {
            List<CompletableFuture<List<String>>> listings = new ArrayList<>();
            List<CompletableFuture<Map<String, Object>>> configs = new ArrayList<>();
            for (String folder : level) {
                listings.add(async(() -> list(path("shared", folder, null))));
                configs.add(async(() -> read(path("shared", folder, CONFIG))));
            }
            List<String> next = new ArrayList<>();
            List<List<String>> children = new ArrayList<>();
            List<List<String>> names = new ArrayList<>();
            List<List<CompletableFuture<Map<String, Object>>>> reads = new ArrayList<>();
            for (int i = 0; i < level.size(); i++) {
                String folder = level.get(i);
                List<String> sub = new ArrayList<>();
                List<String> entryNames = new ArrayList<>();
                List<CompletableFuture<Map<String, Object>>> entryReads = new ArrayList<>();
                for (String key : join(listings.get(i))) {
                    if (key.endsWith("/")) {
                        sub.add(folder + "/" + key.substring(0, key.length() - 1));
                    } else if (!key.equals(CONFIG)) {
                        entryNames.add(key);
                        entryReads.add(async(() -> read(path("shared", folder, key))));
                    }
                }
                next.addAll(sub);
                children.add(sub);
                names.add(entryNames);
                reads.add(entryReads);
            }
            for (int i = 0; i < level.size(); i++) {
                List<EntryInfo> entries = new ArrayList<>();
                for (int e = 0; e < names.get(i).size(); e++) {
                    Map<String, Object> stored = join(reads.get(i).get(e));
                    if (stored != null) {
                        entries.add(EntryInfo.of(names.get(i).get(e), stored));
                    }
                }
                folders.add(folder(level.get(i), join(configs.get(i)), !children.get(i).isEmpty(), entries));
            }
            level = next;
        }
        folders.sort(Comparator.comparing(Folder::path));
        return new AddressBook(folders, clock.instant(), null);
    }

    private static Folder folder(String folderPath, Map<String, Object> config, boolean hasChildren,
            List<EntryInfo> entries) {
        String name = folderPath.substring(folderPath.lastIndexOf('/') + 1);
        return new Folder(name, "shared", folderPath, config == null ? null : (String) config.get("description"),
                config == null ? List.of() : groups(config.get("allowed_groups")),
                config != null && Boolean.TRUE.equals(config.get("inherit_from_parent")), hasChildren, entries,
                config != null, config == null ? null : flag(config.get("enable_recording")));
    }

    /** A boolean as stored (true, or "true" from a hand-written secret), or null when it is not there. */
    private static Boolean flag(Object value) {
        return value == null ? null : value instanceof Boolean b ? b : Boolean.valueOf(value.toString());
    }

    /** The driver hands some refusals back as answers rather than exceptions (a 403 on a LIST, say). */
    private static void check(LogicalResponse response, String path) throws AddressBookException {
        int status = response.getRestResponse().getStatus();
        if (status >= 400 && status != 404) {
            String body = new String(response.getRestResponse().getBody(), java.nio.charset.StandardCharsets.UTF_8);
            throw new AddressBookException(status == 403 ? GuacamoleStatus.UPSTREAM_ERROR : GuacamoleStatus.UPSTREAM_UNAVAILABLE, "Vault answered " + status + " for " + path
                    + ": " + body, status);
        }
    }

    private static List<String> groups(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        if (value instanceof String text && !text.isBlank()) {
            return List.of(text.split("\\s*,\\s*"));
        }
        return List.of();
    }

    @FunctionalInterface
    private interface Read<T> {
        T get() throws AddressBookException;
    }

    private <T> CompletableFuture<T> async(Read<T> read) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return read.get();
            } catch (AddressBookException e) {
                throw new CompletionException(e);
            }
        }, pool);
    }

    private static <T> T join(CompletableFuture<T> future) throws AddressBookException {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof AddressBookException cause) {
                throw cause;
            }
            throw e;
        }
    }

    @Override
    public Map<String, Object> readEntry(String scope, String folderPath, String entry) throws AddressBookException {
        return read(path(scope, folderPath, entry));
    }

    /** rustguac's place for a person's variables: {@code <base>/users/<email>}, {@code @} as {@code _at_}. */
    static String personKey(String email) {
        StringBuilder out = new StringBuilder();
        for (char c : email.replace("@", "_at_").toCharArray()) {
            if (c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.')) {
                out.append(c);
            }
        }
        if (out.isEmpty() || out.chars().allMatch(c -> c == '.')) {
            throw new IllegalArgumentException("no usable key in address '" + email + "'");
        }
        return out.toString();
    }

    @Override
    public Map<String, String> readPersonal(String email) throws AddressBookException {
        Map<String, Object> stored = read(path("users", null, personKey(email)));
        Map<String, String> out = new LinkedHashMap<>();
        if (stored != null) {
            stored.forEach((name, value) -> {
                if (value instanceof String text) {
                    out.put(name, text);
                }
            });
        }
        return out;
    }

    @Override
    public void writePersonal(String email, Map<String, String> values) throws AddressBookException {
        Map<String, Object> data = new LinkedHashMap<>(values);
        call(() -> vault.logical().write(path("users", null, personKey(email)), data));
    }

    @Override
    public boolean writable() {
        return true;
    }

    @Override
    public void writeFolder(String scope, String folderPath, FolderSettings folder) throws AddressBookException {
        Map<String, Object> data = new LinkedHashMap<>();
        JsonArray groups = new JsonArray();
        folder.allowedGroups().forEach(groups::add);
        data.put("allowed_groups", groups);
        data.put("description", folder.description() == null ? "" : folder.description());
        data.put("inherit_from_parent", folder.inheritFromParent());
        if (folder.enableRecording() != null) {
            data.put("enable_recording", folder.enableRecording());
        }
        call(() -> vault.logical().write(path(scope, folderPath, CONFIG), data));
    }

    @Override
    public void writeEntry(String scope, String folderPath, String entry, Map<String, Object> fields)
            throws AddressBookException {
        Map<String, Object> stored = read(path(scope, folderPath, entry));
        Map<String, Object> data = new LinkedHashMap<>(fields);
        if (stored != null) {
            stored.forEach((key, value) -> {
                if (EntryInfo.isSecret(key)) {
                    data.putIfAbsent(key, value);
                }
            });
        }
        call(() -> vault.logical().write(path(scope, folderPath, entry), data));
    }

    @Override
    public boolean deleteEntry(String scope, String folderPath, String entry) throws AddressBookException {
        if (read(path(scope, folderPath, entry)) == null) {
            return false;
        }
        call(() -> vault.logical().delete(path(scope, folderPath, entry)));
        return true;
    }

    @Override
    public int deleteFolder(String scope, String folderPath) throws AddressBookException {
        List<String> secrets = new ArrayList<>();
        List<String> level = List.of(folderPath);
        while (!level.isEmpty()) {
            List<String> next = new ArrayList<>();
            for (String folder : level) {
                for (String key : list(path(scope, folder, null))) {
                    if (key.endsWith("/")) {
                        next.add(folder + "/" + key.substring(0, key.length() - 1));
                    } else {
                        secrets.add(path(scope, folder, key));
                    }
                }
            }
            level = next;
        }
        List<CompletableFuture<Object>> deletions = new ArrayList<>();
        for (String secret : secrets) {
            deletions.add(async(() -> call(() -> vault.logical().delete(secret))));
        }
        for (CompletableFuture<Object> deletion : deletions) {
            join(deletion);
        }
        return secrets.size();
    }
}
