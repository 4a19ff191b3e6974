package org.farmgate.error;

import java.util.List;
import java.util.Map;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * An address-book entry names credential variables the caller has not stored (rustguac answers 412 with
 * {@code missing_variables}, and its page then asks for exactly those). Only names travel, never values.
 */
public class MissingCredentialsException extends GatewayException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> missing;

    public MissingCredentialsException(List<String> missing, String message) {
        super(GuacamoleStatus.CLIENT_BAD_REQUEST, message, Map.of("missing_variables", List.copyOf(missing)), Map.of());
        this.missing = List.copyOf(missing);
    }

    public List<String> missing() {
        return missing;
    }
}
