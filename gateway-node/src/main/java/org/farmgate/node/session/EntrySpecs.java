package org.farmgate.node.session;

import java.util.HashMap;
import java.util.Map;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionSpec;
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

    /** @param overrides what the user typed at connect time (username, password, domain), over the stored values */
    public static SessionSpec fromStored(Map<String, Object> stored, DisplaySize display,
            Map<String, String> overrides) {
        Protocol protocol;
        try {
            protocol = Protocol.parse(String.valueOf(stored.getOrDefault("type", "ssh")));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("the address-book entry has an unknown type: " + stored.get("type"));
        }
        Object host = stored.get("hostname");
        if (host == null || host.toString().isBlank()) {
            throw new InvalidRequestException("the address-book entry has no hostname");
        }
        int port = stored.get("port") == null ? protocol.defaultPort() : Integer.parseInt(stored.get("port")
                .toString());
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
        return new SessionSpec(protocol, host.toString(), port, display, null, parameters);
    }
}
