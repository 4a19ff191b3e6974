package org.farmgate.node.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Json;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.http.Responses;

/** {@code /api/tokens} (admin) and {@code /api/ws-ticket} (any token). */
public final class TokensApi {

    /** Body of {@code POST /api/tokens}. */
    record CreateToken(@JsonProperty("name") String name, @JsonProperty("role") Role role,
            @JsonProperty("groups") Set<String> groups, @JsonProperty("expires_at") Instant expiresAt) {
    }

    private final Vertx vertx;
    private final TokenService tokens;
    private final TicketService tickets;

    public TokensApi(Vertx vertx, TokenService tokens, TicketService tickets) {
        this.vertx = vertx;
        this.tokens = tokens;
        this.tickets = tickets;
    }

    public void mount(Router router, Authenticator auth) {
        router.post("/api/tokens").handler(auth.require(Role.ADMIN)).handler(this::create);
        router.get("/api/tokens").handler(auth.require(Role.ADMIN)).handler(this::list);
        router.delete("/api/tokens/:name").handler(auth.require(Role.ADMIN)).handler(this::revoke);
        router.post("/api/ws-ticket").handler(auth.require(Role.VIEWER)).handler(this::ticket);
    }

    private void create(RoutingContext ctx) {
        CreateToken request = readBody(ctx.body().asString(), CreateToken.class);
        if (request.role() == null) {
            throw new InvalidRequestException("field 'role' is required (viewer, operator, poweruser, admin or "
                    + "auditor)");
        }
        if (request.groups() != null && request.groups().stream().anyMatch(group -> group == null || group.isBlank()
                || group.indexOf('\n') >= 0 || group.length() > 200)) {
            throw new InvalidRequestException("field 'groups' must be a list of group names of at most 200 "
                    + "characters, without line breaks, null or empty ones");
        }
        future(tokens.create(request.name(), request.role(), request.groups() == null ? Set.of() : request.groups(),
                request.expiresAt(), Authenticator.identity(ctx).name())).onFailure(ctx::fail).onSuccess(issued -> {
                    AuditedCalls.target(ctx, issued.record().name());
                    Responses.json(ctx, 201, issued(issued));
                });
    }

    /** A token just made, as the API shows it: the only time its value is shown. */
    static Map<String, Object> issued(TokenService.IssuedToken issued) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", issued.record().name());
        body.put("role", issued.record().role());
        body.put("groups", issued.record().groups());
        body.put("created_at", issued.record().createdAt());
        body.put("expires_at", issued.record().expiresAt());
        body.put("token", issued.token());
        return body;
    }

    private void list(RoutingContext ctx) {
        future(tokens.list()).onFailure(ctx::fail).onSuccess(list -> Responses.json(ctx, 200, list));
    }

    private void revoke(RoutingContext ctx) {
        String name = ctx.pathParam("name");
        future(tokens.revoke(name, Authenticator.identity(ctx).name())).onFailure(ctx::fail).onSuccess(revoked -> {
            if (revoked) {
                Responses.noContent(ctx);
            } else {
                ctx.fail(new NotFoundException("no token named '" + name + "'"));
            }
        });
    }

    private void ticket(RoutingContext ctx) {
        future(tickets.issue(Authenticator.identity(ctx), Authenticator.credential(ctx))).onFailure(ctx::fail)
                .onSuccess(ticket -> Responses.json(ctx, 200, Map.of("ticket", ticket)));
    }

    private <T> Future<T> future(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }

    /** Strict JSON into a record, with a 400 that names the offending field. */
    private static String jsonKind(Class<?> type) {
        if (type == null) {
            return "another kind of value";
        }
        if (CharSequence.class.isAssignableFrom(type)) {
            return "a string";
        }
        if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        if (Number.class.isAssignableFrom(type) || type.isPrimitive() && type != boolean.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (java.time.temporal.Temporal.class.isAssignableFrom(type)) {
            return "a time such as 2027-01-31T12:00:00Z";
        }
        return "a JSON object";
    }

    static <T> T readBody(String body, Class<T> type) {
        if (body == null || body.isBlank()) {
            throw new InvalidRequestException("request body must be a JSON object");
        }
        try {
            T value = Json.mapper().readValue(body, type);
            if (value == null) { // the body "null"
                throw new InvalidRequestException("request body must be a JSON object");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new InvalidRequestException("unknown field '" + e.getPropertyName() + "'");
        } catch (JsonMappingException e) {
            String field = e.getPath().isEmpty() ? null : e.getPath().get(0).getFieldName();
            // Jackson's own message names Java types: say what JSON was expected instead.
            String detail = e.getCause() instanceof IllegalArgumentException cause ? cause.getMessage()
                    : e instanceof MismatchedInputException mismatch ? "expected " + jsonKind(mismatch.getTargetType())
                    : "not readable";
            throw new InvalidRequestException(field == null ? "request body must be a JSON object"
                    : "invalid value for field '" + field + "': " + detail);
        } catch (JsonProcessingException e) {
            throw JsonBody.invalid(e);
        }
    }
}
