package org.farmgate.model.addressbook;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import java.util.List;

/**
 * An address-book folder with its settings (from its {@code .config}) and its entries, as GET /api/addressbook
 * shows it.
 *
 * @param path the folder's path under the scope, segments joined by {@code /}
 * @param configured whether the folder has a {@code .config}; without one only admins see it (rustguac's rule)
 * @param enableRecording whether its sessions are recorded (its subfolders' too, unless they or their entries say
 *     otherwise), as an entry's {@code enable_recording}; null when the folder does not say
 */
public record Folder(
        @JsonProperty("name") String name,
        @JsonProperty("scope") String scope,
        @JsonProperty("path") String path,
        @JsonProperty("description") String description,
        @JsonProperty("allowed_groups") List<String> allowedGroups,
        @JsonProperty("inherit_from_parent") boolean inheritFromParent,
        @JsonProperty("has_children") boolean hasChildren,
        @JsonProperty("entries") List<EntryInfo> entries,
        @com.fasterxml.jackson.annotation.JsonIgnore boolean configured,
        @JsonProperty("enable_recording") Boolean enableRecording) implements Serializable {

    public Folder {
        allowedGroups = List.copyOf(allowedGroups);
        entries = List.copyOf(entries);
    }

    public String parentPath() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }
}
