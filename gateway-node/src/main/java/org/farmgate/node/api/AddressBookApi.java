package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.ConflictException;
import org.farmgate.error.Failures;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.MissingCredentialsException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Json;
import org.farmgate.model.Protocol;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.CredentialVariables;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.node.addressbook.FolderAccess;
import org.farmgate.node.addressbook.RenderedBooks;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.ClientAddresses;
import org.farmgate.node.http.Responses;
import org.farmgate.node.recording.RecordingPolicy;
import org.farmgate.node.session.EntryRef;
import org.farmgate.node.session.EntrySpecs;
import org.farmgate.node.session.Origin;
import org.farmgate.node.session.SessionCreation;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.addressbook.AddressBookCache;
import org.farmgate.router.addressbook.AddressBookException;
import org.farmgate.router.addressbook.AddressBookSource;
import org.farmgate.router.addressbook.Names;

/**
 * The address book's API, in rustguac's shapes: {@code GET /api/addressbook} (operator; each caller sees the
 * folders its groups allow), folder and entry CRUD (admin), and {@code POST .../entries/{entry}/connect}
 * (operator), which places the session like any other; the node that runs it reads the credentials from the source
 * itself, so they never pass through a cluster map, a response or a log.
 */
public final class AddressBookApi {

    private final Vertx vertx;
    private final AddressBookCache cache;
    private final SessionCreation sessions;
    private final long routeCookieSeconds;
    private final ClientAddresses addresses;
    private final RenderedBooks rendered = new RenderedBooks();

    private final RecordingPolicy recordingPolicy;

    public AddressBookApi(Vertx vertx, AddressBookCache cache, SessionCreation sessions,
            long routeCookieSeconds, ClientAddresses addresses, RecordingPolicy recordingPolicy) {
        this.addresses = addresses;
        this.recordingPolicy = recordingPolicy;
        this.vertx = vertx;
        this.cache = cache;
        this.sessions = sessions;
        this.routeCookieSeconds = routeCookieSeconds;
    }

    public void mount(Router router, Authenticator auth) {
        String folder = "/api/addressbook/folders/:scope/:folder";
        router.get("/api/addressbook").handler(auth.require(Role.OPERATOR)).handler(this::list);
        router.post("/api/addressbook/folders").handler(auth.require(Role.ADMIN)).handler(this::createFolder);
        router.put(folder).handler(auth.require(Role.ADMIN)).handler(this::updateFolder);
        router.delete(folder).handler(auth.require(Role.ADMIN)).handler(this::deleteFolder);
        router.post(folder + "/entries").handler(auth.require(Role.ADMIN)).handler(ctx -> writeEntry(ctx, true));
        router.put(folder + "/entries/:entry").handler(auth.require(Role.ADMIN)).handler(ctx -> writeEntry(ctx, false));
        router.delete(folder + "/entries/:entry").handler(auth.require(Role.ADMIN)).handler(this::deleteEntry);
        router.post(folder + "/entries/:entry/connect").handler(auth.require(Role.OPERATOR)).handler(this::connect);
    }

    private void list(RoutingContext ctx) {
        Identity who = Authenticator.identity(ctx);
        book().onFailure(ctx::fail).onSuccess(book -> {
            boolean gzip = Responses.acceptsGzip(ctx.request());
            String etag = rendered.etag(who, book, gzip);
            // The page keeps the book in memory and asks with its validator; nothing is stored by the browser
            // (no-store, as every answer of the API: a map of the farm has no place in a disk cache).
            ctx.response().putHeader("ETag", etag).putHeader("Vary", "Accept-Encoding");
            if (etag.equals(ctx.request().getHeader("If-None-Match"))) {
                ctx.response().putHeader("Cache-Control", "no-store").setStatusCode(304).end();
            } else if (gzip) {
                ctx.response().putHeader("Content-Encoding", "gzip");
                Responses.json(ctx, 200, rendered.render(who, book).gzip());
            } else {
                Responses.json(ctx, 200, rendered.render(who, book).json());
            }
        });
    }

    private void createFolder(RoutingContext ctx) {
        ObjectNode body = object(ctx);
        String path = checked(() -> Names.checkPath(text(body, "path", text(body, "name", null))));
        write(ctx, 201, source -> source.writeFolder("shared", path, settings(body)));
    }

    private void updateFolder(RoutingContext ctx) {
        String scope = checked(() -> Names.checkScope(ctx.pathParam("scope")));
        String path = checked(() -> Names.checkPath(ctx.pathParam("folder")));
        ObjectNode body = object(ctx);
        write(ctx, 200, source -> source.writeFolder(scope, path, settings(body)));
    }

    private void deleteFolder(RoutingContext ctx) {
        String scope = checked(() -> Names.checkScope(ctx.pathParam("scope")));
        String path = checked(() -> Names.checkPath(ctx.pathParam("folder")));
        int[] deleted = {0};
        write(ctx, 200, source -> deleted[0] = source.deleteFolder(scope, path), () -> Map.of("ok", true,
                "deleted", deleted[0]));
    }

    private void writeEntry(RoutingContext ctx, boolean create) {
        String scope = checked(() -> Names.checkScope(ctx.pathParam("scope")));
        String path = checked(() -> Names.checkPath(ctx.pathParam("folder")));
        ObjectNode body = object(ctx);
        String name = checked(() -> Names.checkName("entry name", create ? text(body, "name", null)
                : ctx.pathParam("entry")));
        Map<String, Object> fields = entryFields(body);
        write(ctx, create ? 201 : 200, source -> source.writeEntry(scope, path, name, fields));
    }

    private void deleteEntry(RoutingContext ctx) {
        String scope = checked(() -> Names.checkScope(ctx.pathParam("scope")));
        String path = checked(() -> Names.checkPath(ctx.pathParam("folder")));
        String name = checked(() -> Names.checkName("entry name", ctx.pathParam("entry")));
        boolean[] found = {false};
        inBlocking(source -> found[0] = source.deleteEntry(scope, path, name))
                .compose(ignored -> Future.fromCompletionStage(cache.refresh(), vertx.getOrCreateContext()))
                .onFailure(error -> ctx.fail(translate(error))).onSuccess(ignored -> {
                    if (found[0]) {
                        Responses.noContent(ctx);
                    } else {
                        ctx.fail(new NotFoundException("no entry '" + name + "' in folder '" + path + "'"));
                    }
                });
    }

    private void connect(RoutingContext ctx) {
        String raw = ctx.body().asString();
        ObjectNode body = raw == null || raw.isBlank() ? Json.mapper().createObjectNode() : object(ctx);
        connectEntry(ctx, ctx.pathParam("scope"), ctx.pathParam("folder"), ctx.pathParam("entry"), body)
                .onFailure(ctx::fail).onSuccess(info -> Responses.json(ctx, 201, info));
    }

    /**
     * A session to an entry, for the caller, where its groups allow: what this route and a quick-connect link make.
     * {@code body} may give the display's size and the credentials the entry leaves open.
     */
    Future<SessionInfo> connectEntry(RoutingContext ctx, String scopeName, String folderPath, String entryName,
            ObjectNode body) {
        Identity who = Authenticator.identity(ctx);
        String scope = checked(() -> Names.checkScope(scopeName));
        String path = checked(() -> Names.checkPath(folderPath));
        String name = checked(() -> Names.checkName("entry name", entryName));
        JsonBody.onlyFields(body, List.of("width", "height", "dpi", "username", "password", "domain"));
        return book().compose(book -> {
            Folder folder = book.folder(scope, path).filter(f -> FolderAccess.allows(who, f, book))
                    .orElseThrow(() -> new NotFoundException("no folder '" + path + "'"));
            EntryInfo entry = folder.entries().stream().filter(e -> e.name().equals(name)).findFirst()
                    .orElseThrow(() -> new NotFoundException("no entry '" + name + "' in folder '" + path + "'"));
            Protocol protocol = EntrySpecs.protocolOf(entry.sessionType());
            DisplaySize display = DisplaySize.clamped(JsonBody.integer(body, "width", DisplaySize.DEFAULT.width()),
                    JsonBody.integer(body, "height", DisplaySize.DEFAULT.height()), JsonBody.integer(body, "dpi", DisplaySize.DEFAULT.dpi()));
            Object port = entry.fields().get("port");
            SessionSpec publicSpec = new SessionSpec(protocol, String.valueOf(entry.fields().get("hostname")),
                    EntrySpecs.portOf(port, protocol), display, null, EntrySpecs.publicArguments(entry.fields()),
                    EntrySpecs.publicJumpHosts(entry.fields()));
            Map<String, String> overrides = new HashMap<>();
            for (String field : ArgumentPolicy.CONNECT_OVERRIDES) {
                String value = text(body, field, null);
                if (value != null) {
                    overrides.put(field, value);
                }
            }
            Object displayName = entry.fields().get("display_name");
            boolean recorded = recordingPolicy.forEntry(entry.fields(), folderRecording(book, folder));
            return personalValuesKept(who, entry).compose(ok -> sessions.createFromEntry(who, publicSpec, overrides,
                    new Origin(addresses.of(ctx.request()), new EntryRef(scope, path, name),
                            displayName == null ? null : displayName.toString(), recorded)));
        }).onSuccess(info -> {
            AuditedCalls.target(ctx, info.sessionId());
            SessionsApi.routeHint(ctx, info, routeCookieSeconds);
        });
    }

    /** What the folder or its nearest ancestor that says it says of recording; null when none does. */
    private static Boolean folderRecording(AddressBook book, Folder folder) {
        for (Folder at = folder; at != null; at = at.parentPath() == null ? null
                : book.folder(at.scope(), at.parentPath()).orElse(null)) {
            if (at.enableRecording() != null) {
                return at.enableRecording();
            }
        }
        return null;
    }

    /**
     * Whether the caller keeps a value of every credential variable the entry names, asked before the session is
     * placed so that the page can ask for exactly what is missing (412, rustguac's answer). The node that opens
     * the session reads the values themselves; here only their names are looked at.
     */
    private Future<Void> personalValuesKept(Identity who, EntryInfo entry) {
        if (!(entry.fields().get("credential_variables") instanceof List<?> names) || names.isEmpty()) {
            return Future.succeededFuture();
        }
        List<String> needed = names.stream().map(String::valueOf).toList();
        if (who.email() == null) {
            return Future.failedFuture(new MissingCredentialsException(needed, "this entry uses credential "
                    + "variables (" + String.join(", ", needed) + ") that each person keeps; sign in as a person"));
        }
        return onWorker(vertx, () -> CredentialVariables.missing(needed, cache.source().readPersonal(who.email())))
                .compose(missing -> missing.isEmpty() ? Future.succeededFuture()
                        : Future.failedFuture(CredentialVariables.missingError(missing)));
    }

    private Future<AddressBook> book() {
        return Future.fromCompletionStage(cache.read(), vertx.getOrCreateContext())
                .recover(error -> Future.failedFuture(translate(error)));
    }

    @FunctionalInterface
    private interface Write {
        void apply(AddressBookSource source) throws AddressBookException;
    }

    private void write(RoutingContext ctx, int status, Write write) {
        write(ctx, status, write, () -> Map.of("ok", true));
    }

    private void write(RoutingContext ctx, int status, Write write, java.util.function.Supplier<Object> reply) {
        if (!cache.source().writable()) {
            throw new ConflictException("the address book is read from a file (GW_ADDRESSBOOK_FILE) and cannot be "
                    + "changed through the API; configure Vault for that");
        }
        inBlocking(write)
                // the cluster's copy is reloaded before the answer, so the next read anywhere sees the write
                .compose(ignored -> Future.fromCompletionStage(cache.refresh(), vertx.getOrCreateContext()))
                .recover(error -> {
                    Throwable cause = translate(error);
                    if (cause instanceof GatewayException known && known.status() == GuacamoleStatus.UPSTREAM_UNAVAILABLE) {
                        // The source is down: record it on the shared copy too, so that readers are told.
                        return Future.fromCompletionStage(cache.refresh(), vertx.getOrCreateContext())
                                .transform(ignored -> Future.failedFuture(cause));
                    }
                    return Future.failedFuture(cause);
                })
                .onFailure(error -> ctx.fail(translate(error)))
                .onSuccess(ignored -> Responses.json(ctx, status, reply.get()));
    }

    /**
     * Runs a write on a Vert.x worker, which waits for the source's calls: never on the source's own bounded pool,
     * where a write that fans out (deleting a folder deletes every secret in it through the pool) would wait for
     * threads it occupies itself.
     */
    private Future<Void> inBlocking(Write write) {
        return vertx.executeBlocking(() -> {
            write.apply(cache.source());
            return null;
        }, false);
    }

    /** A blocking call of the source on a Vert.x worker, its failure as the API says it. */
    static <T> Future<T> onWorker(Vertx vertx, java.util.concurrent.Callable<T> call) {
        return vertx.executeBlocking(call, false).recover(error -> Future.failedFuture(translate(error)));
    }

    static Throwable translate(Throwable error) {
        Throwable cause = Failures.cause(error);
        if (cause instanceof AddressBookException book) {
            return book.status() == GuacamoleStatus.UPSTREAM_UNAVAILABLE
                    ? new UnavailableException("address book unavailable: " + book.getMessage()) : book;
        }
        return cause;
    }

    private static AddressBookSource.FolderSettings settings(ObjectNode body) {
        JsonBody.onlyFields(body, List.of("path", "name", "description", "allowed_groups", "inherit_from_parent",
                "enable_recording"));
        List<String> groups = new ArrayList<>();
        JsonNode allowed = body.get("allowed_groups");
        if (allowed != null && !allowed.isNull()) {
            if (!allowed.isArray()) {
                throw new InvalidRequestException("field 'allowed_groups' must be a list of group names");
            }
            allowed.forEach(group -> groups.add(group.asText()));
        }
        JsonNode inherit = body.get("inherit_from_parent");
        if (inherit != null && !inherit.isBoolean()) {
            throw new InvalidRequestException("field 'inherit_from_parent' must be true or false");
        }
        JsonNode recording = body.get("enable_recording");
        if (recording != null && !recording.isNull() && !recording.isBoolean()) {
            throw new InvalidRequestException("field 'enable_recording' must be true or false");
        }
        String description = text(body, "description", null);
        if (description != null) {
            ShownText.check("description", description);
        }
        return new AddressBookSource.FolderSettings(description, groups,
                inherit != null && inherit.asBoolean(), recording == null || recording.isNull() ? null
                        : recording.asBoolean());
    }

    /** An entry's stored fields: rustguac's, scalars only, {@code session_type} accepted for {@code type}. */
    private static Map<String, Object> entryFields(ObjectNode body) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String key = field.getKey().equals("session_type") ? "type" : field.getKey();
            JsonNode value = field.getValue();
            if (key.equals("name") || value.isNull()) {
                continue;
            }
            if (value.isContainerNode()) {
                throw new InvalidRequestException("field '" + field.getKey() + "' must be a string, number or boolean");
            }
            if (EntryInfo.isPublic(key) && value.isTextual()) { // what everyone who may see the entry is shown
                ShownText.check(field.getKey(), value.asText());
            }
            fields.put(key, value.isBoolean() ? (Object) value.asBoolean() : value.isIntegralNumber()
                    ? (Object) value.asLong() : value.asText());
        }
        try {
            Protocol.parse(String.valueOf(fields.getOrDefault("type", "")));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("field 'type' must be ssh, rdp or vnc");
        }
        if (fields.get("hostname") == null || fields.get("hostname").toString().isBlank()) {
            throw new InvalidRequestException("field 'hostname' is required");
        }
        return fields;
    }

    private static ObjectNode object(RoutingContext ctx) {
        return JsonBody.object(ctx.body().asString());
    }

    private static String text(JsonNode body, String field, String fallback) {
        JsonNode value = body.get(field);
        return value == null || value.isNull() ? fallback : value.asText();
    }

    private static <T> T checked(java.util.function.Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(e.getMessage());
        }
    }
}
