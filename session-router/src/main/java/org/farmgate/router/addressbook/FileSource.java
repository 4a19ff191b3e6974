package org.farmgate.router.addressbook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * The address book from a local JSON file, for an install without Vault. The file has the shape of
 * GET /api/addressbook, with each entry's credentials beside its other fields:
 * <pre>{"folders":[{"path":"lab","description":"...","allowed_groups":["ops"],"entries":[
 *   {"name":"web-1","type":"ssh","hostname":"10.0.0.5","username":"me","password":"..."}]}]}</pre>
 * It is read-only through the API; every node reads its own copy, so every node must have the same file.
 */
public final class FileSource implements AddressBookSource {

    private final Path file;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();

    public FileSource(Path file, Clock clock) {
        this.file = file;
        this.clock = clock;
    }

    @Override
    public AddressBook load() throws AddressBookException {
        List<Folder> folders = new ArrayList<>();
        for (JsonNode folder : folders()) {
            String path = Names.checkPath(text(folder, "path", text(folder, "name", null)));
            List<EntryInfo> entries = new ArrayList<>();
            for (JsonNode entry : folder.path("entries")) {
                String name = Names.checkName("entry name", text(entry, "name", null));
                entries.add(EntryInfo.of(name, fields(entry)));
            }
            List<String> groups = new ArrayList<>();
            folder.path("allowed_groups").forEach(group -> groups.add(group.asText()));
            folders.add(new Folder(path.substring(path.lastIndexOf('/') + 1), "shared", path,
                    text(folder, "description", null), groups, folder.path("inherit_from_parent").asBoolean(false),
                    false, entries, true, folder.path("enable_recording").isBoolean()
                            ? folder.path("enable_recording").asBoolean() : null));
        }
        List<Folder> withChildren = new ArrayList<>();
        for (Folder folder : folders) {
            boolean children = folders.stream().anyMatch(other -> folder.path().equals(other.parentPath()));
            withChildren.add(new Folder(folder.name(), folder.scope(), folder.path(), folder.description(),
                    folder.allowedGroups(), folder.inheritFromParent(), children, folder.entries(), true,
                    folder.enableRecording()));
        }
        withChildren.sort(Comparator.comparing(Folder::path));
        return new AddressBook(withChildren, clock.instant(), null);
    }

    @Override
    public Map<String, Object> readEntry(String scope, String folderPath, String entry) throws AddressBookException {
        for (JsonNode folder : folders()) {
            if (folderPath.equals(text(folder, "path", text(folder, "name", null)))) {
                for (JsonNode candidate : folder.path("entries")) {
                    if (entry.equals(text(candidate, "name", null))) {
                        return fields(candidate);
                    }
                }
            }
        }
        return null;
    }

    private JsonNode folders() throws AddressBookException {
        try {
            return json.readTree(Files.readString(file)).path("folders");
        } catch (IOException e) {
            throw new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "cannot read the address book file " + file + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "address book file " + file + ": " + e.getMessage());
        }
    }

    private static final ObjectMapper PLAIN = new ObjectMapper();

    private static Map<String, Object> fields(JsonNode entry) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = entry.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode value = field.getValue();
            String key = field.getKey().equals("session_type") ? "type" : field.getKey();
            if (!key.equals("name")) {
                // lists and objects (an entry's jump_hosts) as plain Java values, the rest as before
                out.put(key, value.isContainerNode() ? PLAIN.convertValue(value, Object.class)
                        : value.isNumber() ? (Object) value.asLong() : value.isBoolean() ? (Object) value.asBoolean()
                        : value.isNull() ? null : value.asText());
            }
        }
        return out;
    }

    private static String text(JsonNode node, String field, String fallback) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? fallback : value.asText();
    }

    @Override
    public boolean writable() {
        return false;
    }

    private static AddressBookException readOnly() {
        return new AddressBookException(GuacamoleStatus.RESOURCE_CONFLICT, "the address book is read from a file (GW_ADDRESSBOOK_FILE) and cannot "
                + "be changed through the API; configure Vault for that");
    }

    @Override
    public void writeFolder(String scope, String folderPath, FolderSettings settings) throws AddressBookException {
        throw readOnly();
    }

    @Override
    public void writeEntry(String scope, String folderPath, String entry, Map<String, Object> fields)
            throws AddressBookException {
        throw readOnly();
    }

    @Override
    public boolean deleteEntry(String scope, String folderPath, String entry) throws AddressBookException {
        throw readOnly();
    }

    @Override
    public int deleteFolder(String scope, String folderPath) throws AddressBookException {
        throw readOnly();
    }
}
