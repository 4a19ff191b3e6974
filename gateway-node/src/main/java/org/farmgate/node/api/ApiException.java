package org.farmgate.node.api;

import java.util.Map;

/**
 * A request that cannot be served, with the HTTP status and a message that tells the caller what to fix. Rendered
 * as {@code {"error": message, ...details}}.
 */
public final class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final transient Map<String, Object> details;
    private final transient Map<String, String> headers;

    public ApiException(int status, String message) {
        this(status, message, Map.of(), Map.of());
    }

    public ApiException(int status, String message, Map<String, Object> details, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.details = Map.copyOf(details);
        this.headers = Map.copyOf(headers);
    }

    public static ApiException badRequest(String message) {
        return new ApiException(400, message);
    }

    public static ApiException notFound(String message) {
        return new ApiException(404, message);
    }

    public static ApiException conflict(String message) {
        return new ApiException(409, message);
    }

    public int status() {
        return status;
    }

    public Map<String, Object> details() {
        return details;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
