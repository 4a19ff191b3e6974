package org.farmgate.model.addressbook;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The whole address book as last read from its source, without a single credential: safe to keep in a cluster
 * map and to serve from any node.
 *
 * @param error why the last refresh failed (the book is then the last good copy), or null
 */
public record AddressBook(List<Folder> folders, Instant loadedAt, String error) implements Serializable {

    public AddressBook {
        folders = List.copyOf(folders);
    }

    public AddressBook failedRefresh(String reason) {
        return new AddressBook(folders, loadedAt, reason);
    }

    public Optional<Folder> folder(String scope, String path) {
        return folders.stream().filter(f -> f.scope().equals(scope) && f.path().equals(path)).findFirst();
    }

    public int entryCount() {
        return folders.stream().mapToInt(f -> f.entries().size()).sum();
    }
}
