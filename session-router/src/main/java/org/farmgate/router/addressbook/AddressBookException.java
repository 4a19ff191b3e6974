package org.farmgate.router.addressbook;

import org.farmgate.error.GatewayException;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * The address book's source failed or refused: unreachable ({@code UPSTREAM_UNAVAILABLE}), answering but refusing
 * the gateway ({@code UPSTREAM_ERROR}: a misconfigured token or policy), or the book cannot be written
 * ({@code RESOURCE_CONFLICT}).
 */
public final class AddressBookException extends GatewayException {

    private static final long serialVersionUID = 1L;

    private final int upstreamStatus;

    public AddressBookException(GuacamoleStatus status, String message) {
        this(status, message, 0);
    }

    /** @param upstreamStatus what the source itself answered (Vault's HTTP status), 0 when it did not answer */
    public AddressBookException(GuacamoleStatus status, String message, int upstreamStatus) {
        super(status, message);
        this.upstreamStatus = upstreamStatus;
    }

    public int upstreamStatus() {
        return upstreamStatus;
    }
}
