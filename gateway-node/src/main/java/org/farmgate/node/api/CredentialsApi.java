package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.UnauthorizedException;
import org.farmgate.model.Role;
import org.farmgate.model.addressbook.CredentialVariables;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.node.addressbook.FolderAccess;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.Responses;
import org.farmgate.router.addressbook.AddressBookCache;

/**
 * "My Credentials", rustguac's API: each person's own values of the credential variables entries name, kept in
 * Vault under the person's own path. A person reads only their own, and then only whether each is set (and the
 * value of a user name or domain); nobody reads another person's, admins included, since no route takes a person.
 * Values are read and written on a worker, never cached, never logged, never put in a cluster map.
 */
public final class CredentialsApi {

    /** Bounds on one person's store: a private key fits, a flood does not. */
    static final int MAX_VARIABLES = 100;
    static final int MAX_VALUE_CHARS = 16 * 1024;

    private final Vertx vertx;
    private final AddressBookCache cache;

    public CredentialsApi(Vertx vertx, AddressBookCache cache) {
        this.vertx = vertx;
        this.cache = cache;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/me/credentials").handler(auth.require(Role.VIEWER)).handler(this::list);
        router.put("/api/me/credentials").handler(auth.require(Role.OPERATOR)).handler(this::save);
        router.delete("/api/me/credentials/:name").handler(auth.require(Role.OPERATOR)).handler(this::remove);
        router.get("/api/credential-variables").handler(auth.require(Role.OPERATOR)).handler(this::variables);
    }

    /** The caller's address, which names their store: a token has none. */
    private static String person(RoutingContext ctx) {
        String email = Authenticator.identity(ctx).email();
        if (email == null) {
            throw new UnauthorizedException("credentials are kept per person: sign in with the identity provider");
        }
        return email;
    }

    private void list(RoutingContext ctx) {
        String email = person(ctx);
        AddressBookApi.onWorker(vertx, () -> cache.source().readPersonal(email)).onFailure(ctx::fail).onSuccess(values -> {
            Map<String, Object> shown = new TreeMap<>();
            values.forEach((name, value) -> shown.put(name, CredentialVariables.masked(name, value, "local")));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("credentials", shown);
            out.put("creds_split", false); // one Vault: rustguac's shared/local choice does not arise
            out.put("default_scope", "local");
            Responses.json(ctx, 200, out);
        });
    }

    /**
     * rustguac's save: {@code {"credentials": {name: value}}}; a blank value keeps the stored one, names not given
     * are kept. A read, a merge and a full write of the person's secret: two saves racing from two tabs can lose
     * one of them, as in rustguac; they are one person's own edits.
     */
    private void save(RoutingContext ctx) {
        String email = person(ctx);
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, List.of("credentials", "scopes"));
        JsonNode given = body.get("credentials");
        if (given == null || !given.isObject()) {
            throw new InvalidRequestException("missing or invalid 'credentials' object");
        }
        Map<String, String> incoming = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = CredentialVariables.checkName(field.getKey());
            JsonNode value = field.getValue();
            if (!value.isNull() && !value.isTextual()) {
                throw new InvalidRequestException("the value of '" + name + "' must be a string");
            }
            String text = value.isNull() ? "" : value.asText();
            if (text.length() > MAX_VALUE_CHARS) {
                throw new InvalidRequestException("the value of '" + name + "' is longer than " + MAX_VALUE_CHARS
                        + " characters");
            }
            incoming.put(name, text);
        }
        List<String> changed = new ArrayList<>();
        AddressBookApi.onWorker(vertx, () -> {
            Map<String, String> kept = new LinkedHashMap<>(cache.source().readPersonal(email));
            incoming.forEach((name, value) -> {
                if (!value.isEmpty()) {
                    kept.put(name, value);
                    changed.add(name);
                }
            });
            if (kept.size() > MAX_VARIABLES) {
                throw new InvalidRequestException("at most " + MAX_VARIABLES + " credential variables per person");
            }
            if (!changed.isEmpty()) {
                cache.source().writePersonal(email, kept);
            }
            return kept.size();
        }).onFailure(ctx::fail).onSuccess(count -> {
            AuditedCalls.detail(ctx, changed.isEmpty() ? "nothing changed" : "set " + String.join(", ", changed));
            Responses.json(ctx, 200, Map.of("ok", true, "count", count));
        });
    }

    private void remove(RoutingContext ctx) {
        String email = person(ctx);
        String name = CredentialVariables.checkName(ctx.pathParam("name"));
        AddressBookApi.onWorker(vertx, () -> {
            Map<String, String> kept = new LinkedHashMap<>(cache.source().readPersonal(email));
            boolean found = kept.remove(name) != null;
            if (found) {
                cache.source().writePersonal(email, kept);
            }
            return found;
        }).onFailure(ctx::fail).onSuccess(found -> {
            if (found) {
                Responses.noContent(ctx);
            } else {
                ctx.fail(new NotFoundException("no credential variable '" + name + "'"));
            }
        });
    }

    /**
     * Every variable the entries the caller may see name, with how many entries name it, grouped by what comes
     * before its last {@code _} (rustguac's "domains"): what My Credentials offers to fill in. Names only.
     */
    private void variables(RoutingContext ctx) {
        Identity who = Authenticator.identity(ctx);
        Future.fromCompletionStage(cache.read(), vertx.getOrCreateContext()).onFailure(error -> ctx.fail(
                AddressBookApi.translate(error))).onSuccess(book -> {
                    Map<String, Integer> counts = new TreeMap<>();
                    for (Folder folder : book.folders()) {
                        if (!FolderAccess.allows(who, folder, book)) {
                            continue;
                        }
                        for (EntryInfo entry : folder.entries()) {
                            if (entry.fields().get("credential_variables") instanceof List<?> names) {
                                names.forEach(name -> counts.merge(String.valueOf(name), 1, Integer::sum));
                            }
                        }
                    }
                    Map<String, List<Map<String, Object>>> domains = new TreeMap<>();
                    counts.forEach((name, count) -> {
                        int cut = name.lastIndexOf('_');
                        domains.computeIfAbsent(cut > 0 ? name.substring(0, cut) : name, d -> new ArrayList<>())
                                .add(Map.of("name", name, "entry_count", count));
                    });
                    Responses.json(ctx, 200, Map.of("variables", counts, "domains", domains));
                });
    }
}
