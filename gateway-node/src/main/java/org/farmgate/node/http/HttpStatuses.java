package org.farmgate.node.http;

import org.farmgate.error.GatewayException;
import org.farmgate.error.MissingCredentialsException;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * The HTTP status each Guacamole status answers with: guacamole-common's table, except that an unknown or missing
 * credential is 401 (our API's contract, as rustguac's) where Guacamole says 403, and an unreachable dependency is
 * 503 (try again later) where Guacamole says 502.
 */
public final class HttpStatuses {

    private HttpStatuses() {
    }

    /** An error's HTTP status: its Guacamole status's, but 412 for missing credential variables, as rustguac. */
    public static int of(GatewayException error) {
        return error instanceof MissingCredentialsException ? 412 : of(error.status());
    }

    public static int of(GuacamoleStatus status) {
        return switch (status) {
            case SUCCESS -> 200;
            case UNSUPPORTED -> 501;
            case SERVER_ERROR -> 500;
            case SERVER_BUSY, UPSTREAM_UNAVAILABLE -> 503;
            case UPSTREAM_TIMEOUT -> 504;
            case UPSTREAM_ERROR, UPSTREAM_NOT_FOUND -> 502;
            case RESOURCE_NOT_FOUND, SESSION_CLOSED -> 404;
            case RESOURCE_CONFLICT, SESSION_CONFLICT -> 409;
            case RESOURCE_CLOSED -> 410;
            case SESSION_TIMEOUT, CLIENT_TIMEOUT -> 408;
            case CLIENT_BAD_REQUEST -> 400;
            case CLIENT_UNAUTHORIZED -> 401;
            case CLIENT_FORBIDDEN -> 403;
            case CLIENT_OVERRUN -> 413;
            case CLIENT_BAD_TYPE -> 415;
            case CLIENT_TOO_MANY -> 429;
        };
    }
}
