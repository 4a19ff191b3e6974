package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;

/**
 * An SSH jump host between the node and a session's target (rustguac's {@code jump_hosts}): where it is, how to log
 * in (a password or a private key, kept on the node that runs the session like every credential), and the host key
 * it must show, when pinned. {@link #toString()} names no secret.
 */
public record JumpHost(@JsonProperty("hostname") String hostname, @JsonProperty("port") int port,
        @JsonProperty("username") String username, @JsonProperty("password") String password,
        @JsonProperty("private_key") String privateKey, @JsonProperty("host_key") String hostKey)
        implements Serializable {

    public String where() {
        return hostname + ":" + port;
    }

    @Override
    public String toString() {
        return "JumpHost[" + username + "@" + where() + "]";
    }
}
