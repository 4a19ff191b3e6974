package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Json;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.http.Responses;
import org.farmgate.node.share.ShareService;

/**
 * {@code /api/sessions/{id}/shares}: share links of a session, made, listed and revoked by its owner or an admin;
 * {@code /api/share-ticket}: a link traded for a WebSocket ticket, by whoever holds it (the link is the credential).
 */
public final class SharesApi {

    private static final List<String> CREATE_FIELDS = List.of("mode", "expires_in_secs");
    private static final List<String> TICKET_FIELDS = List.of("share", "name");
    private static final int MAX_NAME = 64;

    private final ShareService shares;

    public SharesApi(ShareService shares) {
        this.shares = shares;
    }

    public void mount(Router router, Authenticator auth) {
        router.post("/api/sessions/:id/shares").handler(auth.require(Role.VIEWER)).handler(this::create);
        router.get("/api/sessions/:id/shares").handler(auth.require(Role.VIEWER)).handler(this::list);
        router.delete("/api/sessions/:id/shares/:share").handler(auth.require(Role.VIEWER)).handler(this::revoke);
        router.post("/api/share-ticket").handler(this::ticket);
    }

    private void create(RoutingContext ctx) {
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, CREATE_FIELDS);
        boolean readOnly = readOnly(body.get("mode"));
        long maxSecs = shares.settings().maxLifetime().toSeconds();
        int secs = JsonBody.integer(body, "expires_in_secs", (int) shares.settings().defaultLifetime().toSeconds());
        if (secs < 60 || secs > maxSecs) {
            throw new InvalidRequestException("field 'expires_in_secs' must be between 60 and " + maxSecs
                    + " (GW_SHARE_MAX_SECS)");
        }
        shares.create(Authenticator.identity(ctx), ctx.pathParam("id"), readOnly, Duration.ofSeconds(secs))
                .onFailure(ctx::fail).onSuccess(issued -> {
                    AuditedCalls.target(ctx, ctx.pathParam("id") + "/shares/" + issued.share().shareId());
                    ObjectNode out = Json.mapper().valueToTree(issued.share());
                    out.put("share_token", issued.token());
                    // A fragment: the browser never sends it to any server, so no log or proxy sees the link.
                    out.put("share_url", "/#share=" + issued.token());
                    Responses.json(ctx, 201, out);
                });
    }

    private void list(RoutingContext ctx) {
        shares.list(Authenticator.identity(ctx), ctx.pathParam("id")).onFailure(ctx::fail)
                .onSuccess(list -> Responses.json(ctx, 200, list));
    }

    private void revoke(RoutingContext ctx) {
        String id = ctx.pathParam("share");
        shares.revoke(Authenticator.identity(ctx), ctx.pathParam("id"), id).onFailure(ctx::fail)
                .onSuccess(revoked -> {
                    if (revoked) {
                        Responses.noContent(ctx);
                    } else {
                        ctx.fail(new NotFoundException("no share link " + id + " on session " + ctx.pathParam("id")));
                    }
                });
    }

    private void ticket(RoutingContext ctx) {
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, TICKET_FIELDS);
        JsonNode share = body.get("share");
        if (share == null || !share.isTextual()) {
            throw new InvalidRequestException("field 'share' is required: the share link's token (sht_...)");
        }
        shares.ticket(share.asText(), name(body.get("name"))).onFailure(ctx::fail).onSuccess(granted -> {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("ticket", granted.ticket());
            out.put("session_id", granted.share().sessionId());
            out.put("ws_url", granted.session().wsUrl());
            out.put("mode", granted.share().mode());
            out.put("session_type", granted.session().sessionType());
            out.put("owner", granted.session().createdBy());
            out.put("expires_at", granted.share().expiresAt());
            Responses.json(ctx, 200, out);
        });
    }

    private static boolean readOnly(JsonNode mode) {
        if (mode == null || mode.isNull()) {
            return true;
        }
        if (mode.isTextual() && mode.asText().equals("read-only")) {
            return true;
        }
        if (mode.isTextual() && mode.asText().equals("collaborative")) {
            return false;
        }
        throw new InvalidRequestException("field 'mode' must be \"read-only\" or \"collaborative\"");
    }

    /** What the owner sees the watcher as: their word only, so kept short and printable. */
    private static String name(JsonNode name) {
        if (name == null || name.isNull()) {
            return "guest";
        }
        String text = name.isTextual() ? name.asText().strip() : null;
        if (text == null || text.isEmpty() || text.codePointCount(0, text.length()) > MAX_NAME) {
            throw new InvalidRequestException("field 'name' must be 1 to " + MAX_NAME
                    + " printable characters");
        }
        return ShownText.check("name", text);
    }
}
