package org.farmgate.model.addressbook;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * An address-book entry as anyone may see it: the stored entry without its credentials, {@code type} renamed
 * {@code session_type}, plus {@code name} and {@code has_credentials} (rustguac's EntryInfo), and the names of
 * the credential variables it uses ({@code credential_variables}), so that any node can tell a person what is
 * missing before placing the session.
 */
public record EntryInfo(@JsonIgnore String name, @JsonIgnore Map<String, Object> fields) implements Serializable {

    public EntryInfo {
        fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * The stored fields anyone who may see the entry may read: where the machine is and how to reach it, never how
     * to log in. An allow-list, since entries are written by people: a field it does not name ({@code pwd},
     * {@code api_key}, {@code otp}, ...) is treated as a credential, which a list of secret names missed.
     */
    private static final Set<String> PUBLIC = Set.of("type", "hostname", "port", "username", "domain",
            "display_name", "description", "security", "ignore_cert", "ignore-cert", "color_depth", "color-depth",
            "resize_method", "resize-method", "width", "height", "dpi", "server_layout", "server-layout", "console",
            "enable_audio", "disable_audio", "disable-audio", "read_only", "read-only", "tags", "os", "icon",
            "host_key", "host-key", // a host key is public: what a person compares against
            "enable_recording", "max_recordings"); // the page says a session will be recorded before it starts

    /** Whether a stored field may be shown; every other one stays on the node that connects. */
    public static boolean isPublic(String field) {
        return PUBLIC.contains(field.toLowerCase(Locale.ROOT));
    }

    /** Whether a stored field is (or may be) a credential: anything not known to be public. */
    public static boolean isSecret(String field) {
        return !isPublic(field) && !field.equals("name");
    }

    /** The public view of a stored entry. */
    public static EntryInfo of(String name, Map<String, Object> stored) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        boolean credentials = false;
        for (Map.Entry<String, Object> field : stored.entrySet()) {
            if (field.getKey().equals("jump_hosts") && field.getValue() instanceof List<?> hops) {
                credentials |= hopsPublicly(hops, out);
            } else if (isSecret(field.getKey())) {
                credentials |= field.getValue() != null && !String.valueOf(field.getValue()).isEmpty();
            } else if (field.getKey().equals("type")) {
                out.put("session_type", field.getValue());
            } else if (!field.getKey().equals("name")) {
                out.put(field.getKey(), field.getValue());
            }
        }
        out.put("has_credentials", credentials);
        List<String> variables = CredentialVariables.referenced(stored);
        if (!variables.isEmpty()) {
            out.put("credential_variables", variables); // names only: each person's values stay in Vault
        }
        return new EntryInfo(name, out);
    }

    /**
     * An entry's jump hosts as anyone may see them: where, who and which key, never how to log in.
     *
     * @return whether a hop holds a credential
     */
    private static boolean hopsPublicly(List<?> hops, Map<String, Object> out) {
        List<Map<String, Object>> shown = new ArrayList<>();
        boolean credentials = false;
        for (Object hop : hops) {
            if (!(hop instanceof Map<?, ?> fields)) {
                continue; // refused when the entry is used; nothing of it is shown
            }
            Map<String, Object> one = new LinkedHashMap<>();
            for (String name : List.of("hostname", "port", "username", "host_key")) {
                if (fields.get(name) != null) {
                    one.put(name, fields.get(name));
                }
            }
            credentials |= fields.get("password") != null || fields.get("private_key") != null;
            shown.add(one);
        }
        out.put("jump_hosts", shown);
        return credentials;
    }

    @JsonAnyGetter
    public Map<String, Object> json() {
        return fields;
    }

    public String sessionType() {
        Object type = fields.get("session_type");
        return type == null ? "ssh" : type.toString();
    }
}
