package org.farmgate.node.jump;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.JumpHost;
import org.farmgate.node.hostkey.HostKey;
import org.farmgate.node.target.HostName;

/**
 * Reads {@code jump_hosts} as rustguac writes it, from a request body or a stored address-book entry: a list of
 * {@code {hostname, port, username, password | private_key, host_key}}, strictly (a 400 names the hop and the field).
 */
public final class JumpHostsField {

    private static final Set<String> FIELDS = Set.of("hostname", "port", "username", "password", "private_key",
            "host_key");

    private JumpHostsField() {
    }

    /**
     * @param value a list of maps (JSON read as plain Java values), or null for none
     * @param credentials whether the hops must carry a way to log in (false for an entry's public view)
     */
    public static List<JumpHost> parse(Object value, boolean credentials) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new InvalidRequestException("field 'jump_hosts' must be a list of jump hosts");
        }
        if (list.size() > JumpHosts.MAX_HOPS) {
            throw new InvalidRequestException("field 'jump_hosts' has " + list.size() + " hops, at most "
                    + JumpHosts.MAX_HOPS + " are allowed");
        }
        List<JumpHost> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            out.add(hop("jump_hosts[" + i + "]", list.get(i), credentials));
        }
        return out;
    }

    private static JumpHost hop(String at, Object value, boolean credentials) {
        if (!(value instanceof Map<?, ?> fields)) {
            throw new InvalidRequestException("field '" + at + "' must be an object");
        }
        for (Object name : fields.keySet()) {
            if (!FIELDS.contains(String.valueOf(name))) {
                throw new InvalidRequestException("unknown field '" + at + "." + name + "'");
            }
        }
        String hostname = text(fields, at, "hostname");
        if (hostname == null) {
            throw new InvalidRequestException("field '" + at + ".hostname' is required");
        }
        HostName.check(at + ".hostname", hostname);
        int port = port(fields.get("port"), at);
        String username = text(fields, at, "username");
        if (username == null) {
            throw new InvalidRequestException("field '" + at + ".username' is required");
        }
        String password = text(fields, at, "password");
        String privateKey = text(fields, at, "private_key");
        if (credentials && password == null && privateKey == null) {
            throw new InvalidRequestException("field '" + at + "' needs a password or a private_key");
        }
        String hostKey = text(fields, at, "host_key");
        if (hostKey != null) {
            hostKey = HostKey.parse("field '" + at + ".host_key'", hostKey).openSsh();
        }
        return new JumpHost(hostname, port, username, password, privateKey, hostKey);
    }

    private static int port(Object value, String at) {
        if (value == null) {
            return 22;
        }
        try {
            int port = value instanceof Number number ? number.intValue() : Integer.parseInt(value.toString().trim());
            if (port >= 1 && port <= 65535 && !(value instanceof Double)) {
                return port;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new InvalidRequestException("field '" + at + ".port' must be a number from 1 to 65535, got '" + value
                + "'");
    }

    private static String text(Map<?, ?> fields, String at, String name) {
        Object value = fields.get(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String text)) {
            throw new InvalidRequestException("field '" + at + "." + name + "' must be text");
        }
        if (text.length() > 16_384) {
            throw new InvalidRequestException("field '" + at + "." + name + "' is longer than 16384 characters");
        }
        return text.isEmpty() ? null : text;
    }
}
