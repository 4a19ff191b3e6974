package org.farmgate.router.addressbook;

/** The address book's source failed, or refused; {@code status} is the HTTP status to answer with. */
public final class AddressBookException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final int upstreamStatus;

    public AddressBookException(int status, String message) {
        this(status, message, 0);
    }

    /** @param upstreamStatus what the source itself answered (Vault's HTTP status), 0 when it did not answer */
    public AddressBookException(int status, String message, int upstreamStatus) {
        super(message, null, false, false);
        this.status = status;
        this.upstreamStatus = upstreamStatus;
    }

    public int upstreamStatus() {
        return upstreamStatus;
    }

    public int status() {
        return status;
    }
}
