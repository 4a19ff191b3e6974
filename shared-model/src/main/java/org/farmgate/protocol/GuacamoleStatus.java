package org.farmgate.protocol;

/**
 * Guacamole protocol status codes, with the WebSocket close code Apache Guacamole's own tunnel pairs with each
 * (guacamole-common {@code GuacamoleStatus}). guacamole-common-js reads the numeric status from the close reason.
 */
public enum GuacamoleStatus {
    SUCCESS(0x0000, 1000),
    UNSUPPORTED(0x0100, 1011),
    SERVER_ERROR(0x0200, 1011),
    SERVER_BUSY(0x0201, 1008),
    UPSTREAM_TIMEOUT(0x0202, 1011),
    UPSTREAM_ERROR(0x0203, 1011),
    RESOURCE_NOT_FOUND(0x0204, 1002),
    RESOURCE_CONFLICT(0x0205, 1008),
    RESOURCE_CLOSED(0x0206, 1002),
    UPSTREAM_NOT_FOUND(0x0207, 1011),
    UPSTREAM_UNAVAILABLE(0x0208, 1011),
    SESSION_CONFLICT(0x0209, 1008),
    SESSION_TIMEOUT(0x020A, 1002),
    SESSION_CLOSED(0x020B, 1002),
    CLIENT_BAD_REQUEST(0x0300, 1002),
    CLIENT_UNAUTHORIZED(0x0301, 1008),
    CLIENT_FORBIDDEN(0x0303, 1008),
    CLIENT_TIMEOUT(0x0308, 1002),
    CLIENT_OVERRUN(0x030D, 1009),
    CLIENT_BAD_TYPE(0x030F, 1003),
    CLIENT_TOO_MANY(0x031D, 1008);

    private final int code;
    private final int webSocketCloseCode;

    GuacamoleStatus(int code, int webSocketCloseCode) {
        this.code = code;
        this.webSocketCloseCode = webSocketCloseCode;
    }

    /** The numeric status as it appears in an {@code error} instruction (e.g. 519). */
    public int code() {
        return code;
    }

    public short webSocketCloseCode() {
        return (short) webSocketCloseCode;
    }

    /** The WebSocket close code for a numeric status that may come from guacd and be unknown to us. */
    public static short webSocketCloseCodeOf(int code) {
        GuacamoleStatus known = fromCode(code);
        if (known != null) {
            return known.webSocketCloseCode();
        }
        return (short) (code >= 0x0300 ? 1008 : 1011);
    }

    /** The status with this numeric code, or null when guacd sent one this enum does not know. */
    public static GuacamoleStatus fromCode(int code) {
        for (GuacamoleStatus status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        return null;
    }
}
