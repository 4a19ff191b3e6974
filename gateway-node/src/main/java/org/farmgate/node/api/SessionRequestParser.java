package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Json;
import org.farmgate.model.JumpHost;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.jump.JumpHostsField;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.node.target.HostName;

/**
 * Reads a session creation body into a {@link SessionSpec}, strictly: every field is known, of the right type and
 * in range, or the answer is a 400 that names it.
 *
 * <p>Besides the documented fields, a body may carry guacd connection arguments of the chosen protocol by their
 * guacd name, with {@code -} or {@code _} ({@code color_depth}, {@code enable-sftp}). Arguments that would let a
 * caller reach past the target allow-list or write on the gateway host (recording and drive paths, RDP gateways,
 * VNC repeaters and reverse connections, SFTP to another host, Wake-on-LAN) are refused.
 */
public final class SessionRequestParser {

    /** guacd drops an instruction whose element is longer (libguac's GUAC_INSTRUCTION_MAX_LENGTH). */
    static final int MAX_VALUE_LENGTH = 8192;


    /** The body's ask that the session be recorded ({@code "record": true}, an admin's), which is not guacd's. */
    static final String RECORD = "record";

    /** Whether the body asks for the session to be recorded; a 400 for anything but a boolean. */
    public static boolean recordAsked(String body) {
        JsonNode record = JsonBody.object(body).get(RECORD);
        if (record == null || record.isNull()) {
            return false;
        }
        if (!record.isBoolean()) {
            throw new InvalidRequestException("field 'record' must be true or false");
        }
        return record.asBoolean();
    }

    public SessionSpec parse(String body) {
        ObjectNode object = JsonBody.object(body);

        Protocol protocol = Protocol.SSH;
        JsonNode type = object.get("session_type");
        if (type != null && !type.isNull()) {
            try {
                protocol = Protocol.parse(text(object, "session_type"));
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException("field " + e.getMessage().replace("unknown session_type",
                        "'session_type': unknown value"));
            }
        }

        String hostname = text(object, "hostname");
        if (hostname == null || hostname.isEmpty()) {
            throw new InvalidRequestException("field 'hostname' is required");
        }
        HostName.check("hostname", hostname);
        int port = JsonBody.integer(object, "port", protocol.defaultPort());
        if (port < 1 || port > 65535) {
            throw new InvalidRequestException("field 'port' must be between 1 and 65535, got " + port);
        }
        DisplaySize display = DisplaySize.clamped(
                JsonBody.integer(object, "width", DisplaySize.DEFAULT.width()),
                JsonBody.integer(object, "height", DisplaySize.DEFAULT.height()),
                JsonBody.integer(object, "dpi", DisplaySize.DEFAULT.dpi()));
        String timezone = text(object, "timezone");
        if (timezone != null) {
            try {
                timezone = ZoneId.of(timezone).getId();
            } catch (DateTimeException e) {
                throw new InvalidRequestException("field 'timezone' must be an IANA time zone such as Europe/Berlin");
            }
        }

        JsonNode jumps = object.get("jump_hosts");
        List<JumpHost> hops = jumps == null || jumps.isNull() ? List.of()
                : JumpHostsField.parse(Json.mapper().convertValue(jumps, Object.class), true);

        Map<String, String> parameters = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            if (ArgumentPolicy.STRUCTURAL_FIELDS.contains(name) || name.equals("jump_hosts")
                    || name.equals(RECORD) || field.getValue().isNull()) {
                continue;
            }
            String argument = ArgumentPolicy.argumentName(name);
            boolean credentialField = ArgumentPolicy.CREDENTIAL_FIELDS.containsKey(name);
            if (!protocol.guacdArguments().contains(argument)) {
                if (credentialField && isEmpty(field.getValue())) {
                    continue; // e.g. "domain": "" from a client that always sends every field
                }
                throw new InvalidRequestException(credentialField
                        ? "field '" + name + "' does not apply to " + protocol.wireName() + " sessions"
                        : "unknown field '" + name + "'");
            }
            if (!credentialField && ArgumentPolicy.isRefused(argument)) {
                throw new InvalidRequestException("field '" + name + "' is not allowed: it could reach beyond the "
                        + "allowed networks or write on the gateway host");
            }
            parameters.put(argument, scalar(name, field.getValue()));
        }
        return new SessionSpec(protocol, hostname, port, display, timezone, parameters, hops);
    }

    private static boolean isEmpty(JsonNode value) {
        return value.isTextual() && value.asText().isEmpty() || value.isBoolean() && !value.asBoolean();
    }

    private static String scalar(String name, JsonNode value) {
        String text;
        if (value.isTextual()) {
            text = value.asText();
        } else if (value.isBoolean() || value.isIntegralNumber()) {
            text = value.asText();
        } else {
            throw new InvalidRequestException("field '" + name + "' must be a string, a whole number or a boolean");
        }
        if (text.codePointCount(0, text.length()) > MAX_VALUE_LENGTH) {
            throw new InvalidRequestException("field '" + name + "' is longer than " + MAX_VALUE_LENGTH + " characters");
        }
        return text;
    }

    private static String text(ObjectNode object, String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidRequestException("field '" + name + "' must be a string");
        }
        return value.asText();
    }
}
