package org.farmgate.model.addressbook;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An address-book entry as anyone may see it: the stored entry without its credentials, {@code type} renamed
 * {@code session_type}, plus {@code name} and {@code has_credentials} (rustguac's EntryInfo).
 */
public record EntryInfo(@JsonIgnore String name, @JsonIgnore Map<String, Object> fields) implements Serializable {

    public EntryInfo {
        fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** Whether a stored field holds a credential: those never leave the node that connects. */
    public static boolean isSecret(String field) {
        String f = field.toLowerCase(Locale.ROOT);
        return f.contains("password") || f.contains("private_key") || f.contains("private-key")
                || f.contains("passphrase") || f.contains("secret") || f.contains("token");
    }

    /** The public view of a stored entry. */
    public static EntryInfo of(String name, Map<String, Object> stored) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        boolean credentials = false;
        for (Map.Entry<String, Object> field : stored.entrySet()) {
            if (isSecret(field.getKey())) {
                credentials |= field.getValue() != null && !String.valueOf(field.getValue()).isEmpty();
            } else if (field.getKey().equals("type")) {
                out.put("session_type", field.getValue());
            } else if (!field.getKey().equals("name")) {
                out.put(field.getKey(), field.getValue());
            }
        }
        out.put("has_credentials", credentials);
        return new EntryInfo(name, out);
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
