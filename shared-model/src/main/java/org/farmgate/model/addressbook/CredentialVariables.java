package org.farmgate.model.addressbook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.MissingCredentialsException;

/**
 * Credential variables, rustguac's: an entry's {@code username}, {@code password}, {@code domain} or
 * {@code private_key} may hold {@code $name} instead of a value, and each person keeps their own value of
 * {@code name}. The entry is resolved on the node that connects, with the values of the person who connects, so
 * one entry serves everyone under their own account; nobody's values reach the browser, the cluster maps or a log.
 */
public final class CredentialVariables {

    /** The fields that may name a variable (rustguac's, less its web-only ones). */
    public static final List<String> FIELDS = List.of("username", "password", "domain", "private_key");

    /** A reference, as rustguac reads it: {@code $} and at least one of {@code [A-Za-z0-9_-]}. */
    private static final Pattern REFERENCE = Pattern.compile("\\$[A-Za-z0-9_-]+");

    /** A name a person may store: rustguac's rule for {@code PUT /api/me/credentials}. */
    private static final Pattern STORED_NAME = Pattern.compile("[a-z0-9_-]{1,64}");

    private CredentialVariables() {
    }

    /** The variable {@code value} names, or null when it is a plain value. */
    public static String variableOf(Object value) {
        return value instanceof String text && REFERENCE.matcher(text).matches() ? text.substring(1) : null;
    }

    /** The variables a stored entry names, in field order, each once. */
    public static List<String> referenced(Map<String, Object> stored) {
        Set<String> out = new LinkedHashSet<>();
        for (String field : FIELDS) {
            String name = variableOf(stored.get(field));
            if (name != null) {
                out.add(name);
            }
        }
        return List.copyOf(out);
    }

    /** Those of {@code needed} that {@code stored} has no non-empty value for. */
    public static List<String> missing(List<String> needed, Map<String, String> stored) {
        List<String> out = new ArrayList<>();
        for (String name : needed) {
            String value = stored.get(name);
            if (value == null || value.isEmpty()) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * The entry with every variable replaced by the person's value.
     *
     * @throws MissingCredentialsException naming the variables the person has not stored
     */
    public static Map<String, Object> resolve(Map<String, Object> stored, Map<String, String> values) {
        List<String> missing = missing(referenced(stored), values);
        if (!missing.isEmpty()) {
            throw missingError(missing);
        }
        Map<String, Object> out = new LinkedHashMap<>(stored);
        for (String field : FIELDS) {
            String name = variableOf(stored.get(field));
            if (name != null) {
                out.put(field, values.get(name));
            }
        }
        return out;
    }

    public static MissingCredentialsException missingError(List<String> missing) {
        return new MissingCredentialsException(missing, "missing credential variables: " + String.join(", ",
                missing) + " (store them under My Credentials, PUT /api/me/credentials)");
    }

    /** A name to store, or a 400 naming it. */
    public static String checkName(String name) {
        if (name == null || !STORED_NAME.matcher(name).matches()) {
            throw new InvalidRequestException("invalid variable name '" + name
                    + "': use 1 to 64 lowercase letters, digits, underscores and hyphens");
        }
        return name;
    }

    /**
     * What {@code GET /api/me/credentials} shows of a value: whether it is set, and the value itself only for a
     * user name or a domain. rustguac shows every value but those named {@code *_password} or {@code *_key}; a
     * secret named otherwise ({@code corp_pin}, {@code corp_secret}) would then reach the browser again, so here
     * only names known to be harmless are shown.
     */
    public static Map<String, Object> masked(String name, String value, String scope) {
        boolean shown = name.endsWith("_username") || name.endsWith("_user") || name.endsWith("_domain");
        String display = value.isEmpty() ? "" : shown ? value : "••••••••";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("set", !value.isEmpty());
        out.put("display", display);
        out.put("scope", scope);
        return out;
    }
}
