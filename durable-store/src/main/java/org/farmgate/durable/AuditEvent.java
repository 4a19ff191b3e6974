package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A security-relevant action: who (id, name, role, address), did what ({@code action}, e.g. {@code token.create}),
 * to what ({@code target}), with which outcome ({@code success}, {@code refused}, {@code failed}), when, seen by
 * which node. Never a secret: a token's name or id, never the token; a session's id, never its credentials.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuditEvent(
        @JsonProperty("event_id") String eventId,
        @JsonProperty("at") Instant at,
        @JsonProperty("action") String action,
        @JsonProperty("outcome") String outcome,
        @JsonProperty("actor_id") String actorId,
        @JsonProperty("actor_name") String actorName,
        @JsonProperty("actor_role") String actorRole,
        @JsonProperty("client_address") String clientAddress,
        @JsonProperty("target") String target,
        @JsonProperty("detail") String detail,
        @JsonProperty("node_id") String nodeId) implements Fact {

    public static final String SUCCESS = "success";
    public static final String REFUSED = "refused";
    public static final String FAILED = "failed";
    /** The store's own event: a retention purge, naming the last row it removed ({@code through <seq> <hash>}). */
    public static final String PURGE = "audit.purge";

    public AuditEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(nodeId, "nodeId");
        at = Fact.micros(at);
        target = clip(target, 512);
        detail = clip(detail, 2000);
    }

    private static String clip(String text, int max) {
        return text == null || text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
