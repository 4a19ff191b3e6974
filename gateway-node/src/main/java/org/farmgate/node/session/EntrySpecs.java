package org.farmgate.node.session;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.JumpHost;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.jump.JumpHostsField;
import org.farmgate.node.target.ArgumentPolicy;

/**
 * A session from a stored address-book entry (rustguac's fields: {@code type}, {@code hostname}, {@code port},
 * {@code username}, {@code password}, {@code private_key}, {@code domain}, {@code security}, {@code ignore_cert},
 * {@code display_name}...). Fields that are not guacd arguments of the protocol (a display name, a description)
 * are the book's own and are left out; so are the arguments the gateway refuses for ad-hoc sessions.
 */
public final class EntrySpecs {

    private EntrySpecs() {
    }

    private static boolean storesLogin(Map<String, Object> stored) {
        for (String field : List.of("password", "private_key", "private-key", "passphrase")) {
            Object value = stored.get(field);
            if (value != null && !value.toString().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** An entry's {@code type}, or a 400 naming it: entries are written by people, in Vault or a file. */
    public static Protocol protocolOf(Object type) {
        try {
            return Protocol.parse(String.valueOf(type));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("the address-book entry has an unknown type '" + type
                    + "' (ssh, rdp or vnc)");
        }
    }

    /** An entry's {@code port} (a number, or a string of one), the protocol's own when absent, or a 400. */
    public static int portOf(Object port, Protocol protocol) {
        if (port == null) {
            return protocol.defaultPort();
        }
        try {
            int value = Integer.parseInt(port.toString().trim());
            if (value >= 1 && value <= 65535) {
                return value;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new InvalidRequestException("the address-book entry's port must be a number from 1 to 65535, got '"
                + port + "'");
    }

    /**
     * What the placing node needs of an entry's public view: the username (for the list) and the SSH host key the
     * entry pins ({@code host_key}), which decides the key the session must see.
     */
    public static Map<String, String> publicArguments(Map<String, Object> fields) {
        Map<String, String> out = new HashMap<>();
        for (String field : List.of("username", "host_key", "host-key")) {
            Object value = fields.get(field);
            if (value != null && !value.toString().isBlank()) {
                out.put(ArgumentPolicy.argumentName(field), value.toString());
            }
        }
        return out;
    }

    /** An entry's jump hosts as its public view has them: where and which key, without their credentials. */
    public static List<JumpHost> publicJumpHosts(Map<String, Object> fields) {
        return JumpHostsField.parse(fields.get("jump_hosts"), false);
    }

    /** @param overrides what the user typed at connect time (username, password, domain), over the stored values */
    public static SessionSpec fromStored(Map<String, Object> stored, DisplaySize display,
            Map<String, String> overrides) {
        Protocol protocol = protocolOf(stored.getOrDefault("type", "ssh"));
        Object host = stored.get("hostname");
        if (host == null || host.toString().isBlank()) {
            throw new InvalidRequestException("the address-book entry has no hostname");
        }
        int port = portOf(stored.get("port"), protocol);
        if (storesLogin(stored)) {
            for (String field : overrides.keySet()) {
                if (field.equals("username") || field.equals("password")) {
                    // Else the stored password would log in under a name the caller chose.
                    throw new InvalidRequestException("this address-book entry stores its own credentials: field '"
                            + field + "' cannot be given at connect time");
                }
            }
        }
        Map<String, String> parameters = new HashMap<>();
        Map<String, Object> merged = new HashMap<>(stored);
        merged.putAll(overrides);
        for (Map.Entry<String, Object> field : merged.entrySet()) {
            if (field.getValue() == null) {
                continue;
            }
            String argument = ArgumentPolicy.argumentName(field.getKey());
            if (protocol.guacdArguments().contains(argument) && !ArgumentPolicy.isGatewayOwned(argument)
                    && !ArgumentPolicy.isRefused(argument)) {
                parameters.put(argument, field.getValue().toString());
            }
        }
        return new SessionSpec(protocol, host.toString(), port, display, null, parameters,
                JumpHostsField.parse(stored.get("jump_hosts"), true));
    }
}
