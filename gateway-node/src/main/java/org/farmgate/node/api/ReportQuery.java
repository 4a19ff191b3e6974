package org.farmgate.node.api;

import io.vertx.core.MultiMap;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Set;
import org.farmgate.durable.AuditFilter;
import org.farmgate.durable.SessionFilter;
import org.farmgate.error.InvalidRequestException;

/**
 * The query parameters of the reports and the audit log, checked: each unknown parameter, bad number or bad time
 * is refused with its name. Times are ISO 8601 instants ({@code 2026-11-02T10:00:00Z}), dates ({@code 2026-11-02},
 * midnight UTC), or rustguac's {@code 2026-11-02 10:00:00} (UTC).
 */
final class ReportQuery {

    private static final DateTimeFormatter RUSTGUAC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    static final Set<String> SESSION_PARAMETERS = Set.of("user", "entry", "type", "from", "to", "limit", "offset");
    static final Set<String> AUDIT_PARAMETERS = Set.of("actor", "action", "outcome", "target", "from", "to", "limit",
            "offset");

    static final Set<String> RECORDING_PARAMETERS = Set.of("user", "entry", "state", "from", "to", "limit",
            "offset");

    private final MultiMap params;

    ReportQuery(MultiMap params, Set<String> known) {
        this.params = params;
        for (String name : params.names()) {
            if (!known.contains(name)) {
                throw new InvalidRequestException("unknown query parameter '" + name + "' (known: "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
            if (params.getAll(name).size() > 1) {
                throw new InvalidRequestException("query parameter '" + name + "' given more than once");
            }
        }
    }

    SessionFilter sessions() {
        return new SessionFilter(text("user"), text("entry"), type(), time("from"), time("to"), null,
                integer("limit", 0, SessionFilter.MAX_LIMIT), integer("offset", 0, Integer.MAX_VALUE), null);
    }

    org.farmgate.durable.RecordingFilter recordings() {
        String state = text("state");
        if (state != null && !Set.of("recording", "complete", "incomplete", "deleted").contains(state)) {
            throw new InvalidRequestException("query parameter 'state' must be recording, complete, incomplete or "
                    + "deleted");
        }
        return new org.farmgate.durable.RecordingFilter(text("user"), text("entry"), state, time("from"), time("to"),
                null, limit(100, org.farmgate.durable.RecordingFilter.MAX_LIMIT),
                integer("offset", 0, Integer.MAX_VALUE));
    }

    AuditFilter audit() {
        String outcome = text("outcome");
        if (outcome != null && !Set.of("success", "refused", "failed").contains(outcome)) {
            throw new InvalidRequestException("query parameter 'outcome' must be success, refused or failed");
        }
        return new AuditFilter(text("actor"), text("action"), outcome, text("target"), time("from"), time("to"),
                integer("limit", 0, AuditFilter.MAX_LIMIT), integer("offset", 0, Integer.MAX_VALUE));
    }

    int limit(int fallback, int max) {
        int value = integer("limit", 0, max);
        return value == 0 ? fallback : value;
    }

    String text(String name) {
        String value = params.get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (value.length() > 200) {
            throw new InvalidRequestException("query parameter '" + name + "' is longer than 200 characters");
        }
        return value;
    }

    private String type() {
        String type = text("type");
        if (type != null && !Set.of("ssh", "rdp", "vnc").contains(type)) {
            throw new InvalidRequestException("query parameter 'type' must be ssh, rdp or vnc");
        }
        return type;
    }

    private int integer(String name, int min, int max) {
        String value = params.get(name);
        if (value == null || value.isEmpty()) {
            return 0;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed < min || parsed > max) {
                throw new InvalidRequestException("query parameter '" + name + "' must be between " + min + " and "
                        + max + ", got " + parsed);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("query parameter '" + name + "' must be a whole number, got '"
                    + shown(value) + "'");
        }
    }

    /** A bad value as the error repeats it: short, with nothing unprintable. */
    private static String shown(String value) {
        String printable = value.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return printable.length() <= 40 ? printable : printable.substring(0, 40) + "…";
    }

    private Instant time(String name) {
        String value = text(name);
        if (value == null) {
            return null;
        }
        try {
            if (value.length() == 10) {
                return LocalDate.parse(value).atStartOfDay().toInstant(ZoneOffset.UTC);
            }
            if (value.length() == 19 && value.charAt(10) == ' ') {
                return LocalDateTime.parse(value, RUSTGUAC).toInstant(ZoneOffset.UTC);
            }
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidRequestException("query parameter '" + name + "' must be a time such as "
                    + "2026-11-02T10:00:00Z, 2026-11-02 or 2026-11-02 10:00:00 (UTC), got '" + shown(value)
                    + "'");
        }
    }
}
