package org.farmgate.node.addressbook;

import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.node.auth.Identity;

/**
 * Who sees which folder, by rustguac's rules: admins see everything; anyone else sees a folder whose
 * {@code allowed_groups} shares a group with their token, or, when the folder says {@code inherit_from_parent},
 * whose parent they see. A folder without {@code .config} is for admins only.
 */
public final class FolderAccess {

    private FolderAccess() {
    }

    public static boolean allows(Identity who, Folder folder, AddressBook book) {
        if (who.isAdmin()) {
            return true;
        }
        Folder current = folder;
        while (current != null && current.configured()) {
            if (current.allowedGroups().stream().anyMatch(who.groups()::contains)) {
                return true;
            }
            if (!current.inheritFromParent() || current.parentPath() == null) {
                return false;
            }
            current = book.folder(current.scope(), current.parentPath()).orElse(null);
        }
        return false;
    }
}
