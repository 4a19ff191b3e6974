package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.LinkedHashMap;
import java.util.Map;

/** An audit event as the log holds it: its place in the chain and the hashes that chain it. */
public record AuditRow(long seq, AuditEvent event, String prevHash, String hash) {

    /** One flat object: the place, the event's fields, the hashes. */
    @JsonValue
    public Map<String, Object> json() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seq", seq);
        out.put("event_id", event.eventId());
        out.put("at", event.at());
        out.put("action", event.action());
        out.put("outcome", event.outcome());
        out.put("actor_id", event.actorId());
        out.put("actor_name", event.actorName());
        out.put("actor_role", event.actorRole());
        out.put("client_address", event.clientAddress());
        out.put("target", event.target());
        out.put("detail", event.detail());
        out.put("node_id", event.nodeId());
        out.put("prev_hash", prevHash);
        out.put("hash", hash);
        return out;
    }
}
