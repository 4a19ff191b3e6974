package org.farmgate.node.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.farmgate.durable.GroupMapping;
import org.farmgate.durable.PersonRow;
import org.farmgate.error.ConflictException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.Responses;
import org.farmgate.node.people.People;

/**
 * rustguac's people and group-mapping routes: {@code /api/users} and {@code /api/admin/group-mappings}. Admins change;
 * auditors read. A person is named by their id ({@code oidc:} and the provider's subject) or, as rustguac names them,
 * by their e-mail address. Nobody disables, deletes or changes the role of themselves: another admin does, so that
 * the last admin cannot lock everyone out by a slip.
 */
public final class PeopleApi {

    record RoleBody(@JsonProperty("role") Role role) {
    }

    record MappingBody(@JsonProperty("group") String group, @JsonProperty("role") Role role) {
    }

    private final Vertx vertx;
    private final People people;

    public PeopleApi(Vertx vertx, People people) {
        this.vertx = vertx;
        this.people = people;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/users").handler(auth.require(Role.AUDITOR)).handler(this::list);
        router.get("/api/users/:id").handler(auth.require(Role.AUDITOR)).handler(this::one);
        router.put("/api/users/:id/role").handler(auth.require(Role.ADMIN)).handler(this::role);
        router.post("/api/users/:id/disable").handler(auth.require(Role.ADMIN)).handler(ctx -> disabled(ctx, true));
        router.post("/api/users/:id/enable").handler(auth.require(Role.ADMIN)).handler(ctx -> disabled(ctx, false));
        router.delete("/api/users/:id").handler(auth.require(Role.ADMIN)).handler(this::delete);
        router.get("/api/admin/group-mappings").handler(auth.require(Role.AUDITOR)).handler(this::mappings);
        router.post("/api/admin/group-mappings").handler(auth.require(Role.ADMIN)).handler(this::addMapping);
        router.put("/api/admin/group-mappings/:id").handler(auth.require(Role.ADMIN)).handler(this::changeMapping);
        router.delete("/api/admin/group-mappings/:id").handler(auth.require(Role.ADMIN)).handler(this::deleteMapping);
    }

    private void list(RoutingContext ctx) {
        future(people.list()).onFailure(ctx::fail).onSuccess(all -> Responses.json(ctx, 200,
                all.stream().map(PeopleApi::shown).toList()));
    }

    private void one(RoutingContext ctx) {
        future(people.find(ctx.pathParam("id"))).onFailure(ctx::fail)
                .onSuccess(person -> Responses.json(ctx, 200, shown(person)));
    }

    /** {@code {"role": "poweruser"}} gives the person a role of their own; {@code {"role": null}} their groups' again. */
    private void role(RoutingContext ctx) {
        String body = ctx.body().asString();
        RoleBody asked = TokensApi.readBody(body, RoleBody.class);
        if (!JsonBody.object(body).has("role")) {
            throw new InvalidRequestException("field 'role' is required: a role (viewer, auditor, operator, poweruser, "
                    + "admin), or null to let the person's groups decide again");
        }
        String id = notSelf(ctx, "change the role of");
        AuditedCalls.detail(ctx, asked.role() == null ? "role from their groups" : "role " + asked.role().wireName());
        future(people.setRole(id, asked.role(), Authenticator.identity(ctx).name())).onFailure(ctx::fail)
                .onSuccess(person -> Responses.json(ctx, 200, Map.of("ok", true, "user", shown(person))));
    }

    private void disabled(RoutingContext ctx, boolean disabled) {
        String id = disabled ? notSelf(ctx, "disable") : ctx.pathParam("id");
        future(people.setDisabled(id, disabled, Authenticator.identity(ctx).name())).onFailure(ctx::fail)
                .onSuccess(person -> Responses.json(ctx, 200, Map.of("ok", true, "user", shown(person))));
    }

    private void delete(RoutingContext ctx) {
        future(people.delete(notSelf(ctx, "delete"), Authenticator.identity(ctx).name())).onFailure(ctx::fail)
                .onSuccess(person -> Responses.noContent(ctx));
    }

    private void mappings(RoutingContext ctx) {
        future(people.mappings()).onFailure(ctx::fail).onSuccess(all -> Responses.json(ctx, 200,
                all.stream().map(PeopleApi::shown).toList()));
    }

    private void addMapping(RoutingContext ctx) {
        MappingBody asked = TokensApi.readBody(ctx.body().asString(), MappingBody.class);
        if (asked.group() == null || asked.group().isBlank() || asked.group().length() > 255
                || asked.group().chars().anyMatch(Character::isISOControl)) {
            throw new InvalidRequestException("field 'group' must be the provider's group name: 1-255 characters, "
                    + "without control characters");
        }
        Role role = required(asked.role());
        AuditedCalls.target(ctx, asked.group());
        AuditedCalls.detail(ctx, "role " + role.wireName());
        future(people.addMapping(asked.group(), role, Authenticator.identity(ctx).name())).onFailure(ctx::fail)
                .onSuccess(mapping -> Responses.json(ctx, 201, shown(mapping)));
    }

    private void changeMapping(RoutingContext ctx) {
        Role role = required(TokensApi.readBody(ctx.body().asString(), RoleBody.class).role());
        AuditedCalls.detail(ctx, "role " + role.wireName());
        future(people.setMappingRole(mappingId(ctx), role)).onFailure(ctx::fail)
                .onSuccess(mapping -> Responses.noContent(ctx));
    }

    private void deleteMapping(RoutingContext ctx) {
        future(people.deleteMapping(mappingId(ctx))).onFailure(ctx::fail).onSuccess(mapping -> {
            AuditedCalls.detail(ctx, "group " + mapping.group());
            Responses.noContent(ctx);
        });
    }

    private static Role required(Role role) {
        if (role == null) {
            throw new InvalidRequestException("field 'role' is required (viewer, auditor, operator, poweruser or "
                    + "admin)");
        }
        return role;
    }

    private static long mappingId(RoutingContext ctx) {
        try {
            return Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw new NotFoundException("no group mapping '" + ctx.pathParam("id") + "': mappings are named by their "
                    + "number");
        }
    }

    /** The person the path names, unless it is the caller. */
    private static String notSelf(RoutingContext ctx, String what) {
        String id = ctx.pathParam("id");
        Identity caller = Authenticator.identity(ctx);
        if (id.equals(caller.id()) || caller.email() != null && id.equalsIgnoreCase(caller.email())) {
            throw new ConflictException("you cannot " + what + " yourself: another admin can");
        }
        return id;
    }

    /** rustguac's user object, with what a cluster adds (the role an admin gave, when first seen). */
    static Map<String, Object> shown(PersonRow person) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", person.id());
        out.put("email", person.email());
        out.put("name", person.name());
        out.put("oidc_subject", person.subject());
        out.put("role", person.roleOverride() != null ? person.roleOverride() : person.role());
        out.put("role_override", person.roleOverride());
        out.put("disabled", person.disabled());
        out.put("created_at", person.firstSeen());
        out.put("last_login_at", person.lastSeen());
        out.put("oidc_groups", String.join(",", person.groups()));
        return out;
    }

    static Map<String, Object> shown(GroupMapping mapping) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", mapping.id());
        out.put("oidc_group", mapping.group());
        out.put("role", mapping.role());
        out.put("created_at", mapping.createdAt());
        out.put("created_by", mapping.createdBy());
        return out;
    }

    private <T> Future<T> future(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
