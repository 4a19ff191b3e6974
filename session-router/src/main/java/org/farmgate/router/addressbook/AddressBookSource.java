package org.farmgate.router.addressbook;

import java.util.Map;
import org.farmgate.model.addressbook.AddressBook;

/**
 * Where the address book is stored. Calls block (network, files): run them on a worker pool, never on an event
 * loop. Only {@link #readEntry} returns credentials, and only to the node that will connect.
 */
public interface AddressBookSource {

    /** Every folder and entry, credentials left out. */
    AddressBook load() throws AddressBookException;

    /** One stored entry, credentials included; null when there is none. */
    Map<String, Object> readEntry(String scope, String folderPath, String entry) throws AddressBookException;

    /** Whether the API may change the book (a local file is read-only). */
    boolean writable();

    void writeFolder(String scope, String folderPath, FolderSettings settings) throws AddressBookException;

    /**
     * Stores an entry. Credentials the new entry leaves out are kept from the stored one, so that editing a host
     * name does not mean typing the password again.
     */
    void writeEntry(String scope, String folderPath, String entry, Map<String, Object> fields)
            throws AddressBookException;

    /** @return whether there was such an entry */
    boolean deleteEntry(String scope, String folderPath, String entry) throws AddressBookException;

    /** Deletes the folder with everything under it; returns how many secrets were deleted. */
    int deleteFolder(String scope, String folderPath) throws AddressBookException;

    /**
     * The credential variables one person keeps, by name; empty when they keep none. Only the person's own calls
     * and the node that connects them read these.
     *
     * @param email the person's address, which names their place in the store
     */
    default Map<String, String> readPersonal(String email) throws AddressBookException {
        throw personalUnsupported();
    }

    /** Replaces one person's credential variables with {@code values}. */
    default void writePersonal(String email, Map<String, String> values) throws AddressBookException {
        throw personalUnsupported();
    }

    private static AddressBookException personalUnsupported() {
        return new AddressBookException(org.farmgate.protocol.GuacamoleStatus.UNSUPPORTED,
                "credentials kept per person need the address book in Vault (VAULT_ADDR); this one is a file");
    }

    /** A folder's {@code .config}; {@code enableRecording} null when it does not say. */
    record FolderSettings(String description, java.util.List<String> allowedGroups, boolean inheritFromParent,
            Boolean enableRecording) {
    }
}
