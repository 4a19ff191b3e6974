package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;
import org.farmgate.protocol.GuacdArguments;

/** The remote-console protocols a session can speak, as guacd names them in {@code select}. */
public enum Protocol {
    SSH(22, GuacdArguments.SSH),
    RDP(3389, GuacdArguments.RDP),
    VNC(5900, GuacdArguments.VNC);

    private final int defaultPort;
    private final List<String> guacdArguments;

    Protocol(int defaultPort, List<String> guacdArguments) {
        this.defaultPort = defaultPort;
        this.guacdArguments = guacdArguments;
    }

    /** The name guacd expects in {@code select} and the API uses in {@code session_type}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public int defaultPort() {
        return defaultPort;
    }

    /** The arguments guacd 1.6.0 takes for this protocol, in its order. */
    public List<String> guacdArguments() {
        return guacdArguments;
    }

    /** @throws IllegalArgumentException naming the accepted values when {@code name} is not one */
    @JsonCreator
    public static Protocol parse(String name) {
        for (Protocol protocol : values()) {
            if (protocol.wireName().equals(name)) {
                return protocol;
            }
        }
        throw new IllegalArgumentException("unknown session_type '" + name + "' (expected ssh, rdp or vnc)");
    }
}
