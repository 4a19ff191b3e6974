package org.farmgate.node.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Json;

/** The checks every JSON request body gets, each failing as a 400 that says what is wrong. */
public final class JsonBody {

    /** Jackson's words for a key twice in one object (StreamReadFeature.STRICT_DUPLICATE_DETECTION). */
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '([^']*)'");

    private JsonBody() {
    }

    public static ObjectNode object(String body) {
        JsonNode root;
        try {
            root = Json.mapper().readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            throw invalid(e);
        }
        if (!(root instanceof ObjectNode object)) {
            throw new InvalidRequestException("request body must be a JSON object");
        }
        return object;
    }

    /** A body JSON's parser refused, as the 400 that says where and what. */
    public static InvalidRequestException invalid(JsonProcessingException e) {
        return new InvalidRequestException("request body is not valid JSON" + where(e) + ": " + what(e));
    }

    private static String where(JsonProcessingException e) {
        return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
    }

    /**
     * What is wrong, in JSON's words: Jackson's own messages name its classes and settings (a fuzzer found
     * "bound as `com.fasterxml.jackson.databind.JsonNode` ... `DeserializationFeature.FAIL_ON_TRAILING_TOKENS`").
     */
    private static String what(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (message.startsWith("Trailing token")) {
            return "more follows the JSON value";
        }
        if (message.contains("end-of-input") || message.contains("No content")) {
            return "it ends too early";
        }
        if (message.startsWith("Unexpected character")) {
            return "unexpected character";
        }
        if (message.startsWith("Unrecognized token")) {
            return "a word that is not a JSON value";
        }
        Matcher duplicate = DUPLICATE.matcher(message);
        if (duplicate.lookingAt()) {
            return "field '" + duplicate.group(1) + "' appears more than once";
        }
        return message.contains("com.fasterxml") || message.contains("java.") ? "malformed" : message;
    }

    public static void onlyFields(ObjectNode body, Collection<String> known) {
        for (Iterator<String> fields = body.fieldNames(); fields.hasNext(); ) {
            String field = fields.next();
            if (!known.contains(field)) {
                throw new InvalidRequestException("unknown field '" + field + "'");
            }
        }
    }

    public static int integer(ObjectNode body, String name, int fallback) {
        JsonNode value = body.get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new InvalidRequestException("field '" + name + "' must be a whole number");
        }
        return value.asInt();
    }
}
