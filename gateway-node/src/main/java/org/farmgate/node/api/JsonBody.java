package org.farmgate.node.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Iterator;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Json;

/** The checks every JSON request body gets, each failing as a 400 that says what is wrong. */
public final class JsonBody {

    private JsonBody() {
    }

    public static ObjectNode object(String body) {
        JsonNode root;
        try {
            root = Json.mapper().readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("request body is not valid JSON: " + e.getOriginalMessage());
        }
        if (!(root instanceof ObjectNode object)) {
            throw new InvalidRequestException("request body must be a JSON object");
        }
        return object;
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
