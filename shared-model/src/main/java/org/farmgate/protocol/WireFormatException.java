package org.farmgate.protocol;

/** Bytes that are not a valid Guacamole instruction stream, or that exceed the {@link WireLimits} in force. */
public final class WireFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    public WireFormatException(String message) {
        super(message);
    }
}
