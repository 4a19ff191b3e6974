package org.farmgate.error;

import java.util.Map;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Something the gateway cannot do, with the Guacamole status that says why: the one error type of the domain, as
 * guacamole-common's {@code GuacamoleException} is Guacamole's. Code below the edges throws a subclass and never
 * thinks about wire formats; the HTTP API turns the status into an HTTP status and a JSON body, the WebSocket
 * tunnel into an {@code error} instruction and a close code, the node-to-node messenger into a failure code.
 *
 * <p>Unchecked, unlike Guacamole's: these errors travel through Vert.x futures, which carry any {@code Throwable}
 * and would force a catch-and-rethrow at every stage otherwise. No stack trace is filled in: the message names
 * what is wrong, and these are expected outcomes (a bad field, a full cluster), not bugs.
 */
public class GatewayException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient GuacamoleStatus status;
    private final transient Map<String, Object> details;
    private final transient Map<String, String> headers;

    public GatewayException(GuacamoleStatus status, String message) {
        this(status, message, Map.of(), Map.of());
    }

    /**
     * @param details more fields for the JSON error body (e.g. {@code reason})
     * @param headers hints for an HTTP answer (e.g. {@code Retry-After}); ignored on other edges
     */
    public GatewayException(GuacamoleStatus status, String message, Map<String, Object> details,
            Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.details = Map.copyOf(details);
        this.headers = Map.copyOf(headers);
    }

    /** The status an edge renders; never null. */
    public GuacamoleStatus status() {
        return status;
    }

    /** The numeric status as it goes into an {@code error} instruction: guacd's own code where guacd sent one. */
    public int guacamoleCode() {
        return status.code();
    }

    public Map<String, Object> details() {
        return details;
    }

    public Map<String, String> headers() {
        return headers;
    }

    /** The error a numeric status stands for, as it arrives from a peer node or guacd. */
    public static GatewayException of(int guacamoleCode, String message) {
        GuacamoleStatus known = GuacamoleStatus.fromCode(guacamoleCode);
        if (known == null) {
            return new UpstreamException(guacamoleCode, message);
        }
        return switch (known) {
            case CLIENT_BAD_REQUEST -> new InvalidRequestException(message);
            case CLIENT_UNAUTHORIZED -> new UnauthorizedException(message);
            case CLIENT_FORBIDDEN -> new ForbiddenException(message);
            case RESOURCE_NOT_FOUND -> new NotFoundException(message);
            case RESOURCE_CONFLICT -> new ConflictException(message);
            case CLIENT_TOO_MANY -> new TooManyException(message);
            case UPSTREAM_UNAVAILABLE -> new UnavailableException(message);
            default -> new GatewayException(known, message);
        };
    }
}
