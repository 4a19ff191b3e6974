package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.model.Role;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.hostkey.HostKey;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.node.hostkey.TrustedKey;
import org.farmgate.node.http.Responses;
import org.farmgate.node.session.SessionService;
import org.farmgate.node.session.SessionTargets;
import org.farmgate.node.target.HostName;

/**
 * SSH host keys: rustguac's {@code POST /api/ssh/probe-host-key} (powerusers read a target's key, within the
 * networks SSH sessions may reach), the cluster's trusted keys ({@code /api/ssh/known-hosts}: auditors read, admins
 * pin and forget), and a session's key as its page shows it before it starts.
 */
public final class HostKeysApi {

    private final Vertx vertx;
    private final HostKeyTrust trust;
    private final SessionTargets targets;
    private final SessionService sessions;

    public HostKeysApi(Vertx vertx, HostKeyTrust trust, SessionTargets targets, SessionService sessions) {
        this.vertx = vertx;
        this.trust = trust;
        this.targets = targets;
        this.sessions = sessions;
    }

    public void mount(Router router, Authenticator auth) {
        router.post("/api/ssh/probe-host-key").handler(auth.require(Role.POWERUSER)).handler(this::probe);
        router.get("/api/ssh/known-hosts").handler(auth.require(Role.AUDITOR)).handler(this::list);
        router.put("/api/ssh/known-hosts").handler(auth.require(Role.ADMIN)).handler(this::pin);
        router.delete("/api/ssh/known-hosts/:host/:port").handler(auth.require(Role.ADMIN)).handler(this::forget);
        router.get("/api/sessions/:id/host-key").handler(auth.require(Role.VIEWER)).handler(this::ofSession);
    }

    /** A target named in a body: {@code hostname} and {@code port} (22 when absent). */
    private record Target(String host, int port) {

        static Target of(ObjectNode body) {
            JsonNode host = body.get("hostname");
            if (host == null || !host.isTextual() || host.asText().isBlank()) {
                throw new InvalidRequestException("field 'hostname' is required: the SSH server's name or address");
            }
            HostName.check("hostname", host.asText());
            return new Target(host.asText().trim(), port(body.get("port")));
        }

        static int port(JsonNode port) {
            if (port == null || port.isNull()) {
                return 22;
            }
            if (!port.canConvertToInt() || port.asInt() < 1 || port.asInt() > 65535) {
                throw new InvalidRequestException("field 'port' must be a number from 1 to 65535, got " + port);
            }
            return port.asInt();
        }
    }

    private void probe(RoutingContext ctx) {
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, List.of("hostname", "port"));
        Target target = Target.of(body);
        AuditedCalls.target(ctx, target.host() + ":" + target.port());
        shownNow(target.host(), target.port())
                .compose(key -> future(trust.find(target.host(), target.port())).map(known -> {
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("host_key", key.openSsh());
                    out.put("fingerprint", key.fingerprint());
                    out.put("algorithm", key.algorithm());
                    out.put("trusted", known == null ? null : shown(known));
                    out.put("matches_trusted", known == null ? null : known.hostKey().equals(key.openSsh()));
                    return out;
                }))
                .onFailure(ctx::fail).onSuccess(out -> Responses.json(ctx, 200, out));
    }

    private void list(RoutingContext ctx) {
        future(trust.list()).onFailure(ctx::fail).onSuccess(all -> Responses.json(ctx, 200,
                Map.of("policy", trust.policy().wireName(), "key_order", trust.keyOrder(), "known_hosts",
                        all.stream().map(HostKeysApi::shown).toList())));
    }

    /** {@code {"hostname": ..., "port": 22, "host_key": "ssh-ed25519 AAAA..."}}: every later session must see it. */
    private void pin(RoutingContext ctx) {
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, List.of("hostname", "port", "host_key"));
        Target target = Target.of(body);
        JsonNode key = body.get("host_key");
        HostKey parsed = HostKey.parse("field 'host_key'", key == null || key.isNull() ? null : key.asText());
        AuditedCalls.target(ctx, target.host() + ":" + target.port());
        AuditedCalls.detail(ctx, "pinned " + parsed.fingerprint());
        future(trust.pin(target.host(), target.port(), parsed.openSsh(), Authenticator.identity(ctx).name()))
                .onFailure(ctx::fail).onSuccess(pinned -> Responses.json(ctx, 200, shown(pinned)));
    }

    private void forget(RoutingContext ctx) {
        String host = ctx.pathParam("host");
        HostName.check("host", host);
        int port;
        try {
            port = Integer.parseInt(ctx.pathParam("port"));
        } catch (NumberFormatException e) {
            port = 0;
        }
        if (port < 1 || port > 65535) {
            throw new InvalidRequestException("the port in the path must be a number from 1 to 65535, got '"
                    + ctx.pathParam("port") + "'");
        }
        future(trust.forget(host, port, Authenticator.identity(ctx).name())).onFailure(ctx::fail)
                .onSuccess(forgotten -> {
                    AuditedCalls.detail(ctx, "forgot " + forgotten.fingerprint());
                    Responses.json(ctx, 200, shown(forgotten));
                });
    }

    /**
     * The key the session's target must show, for whoever may see the session: its page shows the fingerprint, and
     * says so when this session was the first to trust it. With {@code check=true}, also the key the target shows
     * now: guacd tells a refused session only "Aborted. See logs.", and this says whether the key changed.
     */
    private void ofSession(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        boolean check = "true".equals(ctx.request().getParam("check"));
        sessions.get(Authenticator.identity(ctx), id).map(info -> info.orElseThrow(
                () -> new NotFoundException("no session " + id)))
                .compose(info -> future(trust.find(info.hostname(), info.port())).compose(known -> {
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("policy", trust.policy().wireName());
                    out.put("host_key", known == null ? null : shown(known));
                    out.put("first_use", known != null && id.equals(known.sessionId()));
                    if (!check || info.sessionType() != Protocol.SSH) {
                        return Future.succeededFuture(out);
                    }
                    return shownNow(info.hostname(), info.port()).map(key -> {
                        out.put("shown", Map.of("host_key", key.openSsh(), "fingerprint", key.fingerprint(),
                                "algorithm", key.algorithm()));
                        out.put("matches_trusted", known == null ? null : known.hostKey().equals(key.openSsh()));
                        return out;
                    });
                }))
                .onFailure(ctx::fail).onSuccess(out -> Responses.json(ctx, 200, out));
    }

    /** The key the target shows now, read within the networks SSH sessions may reach. */
    private Future<HostKey> shownNow(String host, int port) {
        SessionSpec spec = new SessionSpec(Protocol.SSH, host, port, DisplaySize.DEFAULT, null, Map.of());
        return targets.resolveChecked(spec).compose(addresses -> future(trust.probe(addresses.get(0), port)));
    }

    static Map<String, Object> shown(TrustedKey key) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("hostname", key.host());
        out.put("port", key.port());
        out.put("host_key", key.hostKey());
        out.put("fingerprint", key.fingerprint());
        out.put("algorithm", key.hostKey().substring(0, key.hostKey().indexOf(' ')));
        out.put("how", key.how().wireName());
        out.put("by", key.by());
        out.put("session_id", key.sessionId());
        out.put("at", key.at());
        return out;
    }

    private <T> Future<T> future(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
