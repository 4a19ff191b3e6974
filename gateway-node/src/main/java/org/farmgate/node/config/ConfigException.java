package org.farmgate.node.config;

/** A configuration value that is missing, malformed or out of range; the message names the key. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
