package org.farmgate.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.node.session.EntrySpecs;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.router.addressbook.AddressBookException;
import org.farmgate.router.addressbook.FileSource;
import org.farmgate.router.addressbook.Names;

/**
 * An address-book file (GW_ADDRESSBOOK_FILE) written by a person, under arbitrary content: it loads, or fails with
 * an address-book error naming the problem. What loads has only names that are single harmless path segments, shows
 * no field that may be a credential, and each entry becomes a session spec without refused or gateway-owned guacd
 * arguments, or a 4xx naming what is wrong with the entry.
 */
class AddressBookFuzzTest {

    private static final Path FILE = file();
    /** What the public view adds to the stored fields it lets through. */
    private static final java.util.Set<String> VIEW_FIELDS = java.util.Set.of("name", "session_type",
            "has_credentials");

    private static Path file() {
        try {
            Path file = Files.createTempFile("farmgate-fuzz-addressbook", ".json");
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @FuzzTest(maxDuration = "10s")
    @DictionaryEntries({"{", "}", "[", "]", ":", ",", "\"folders\"", "\"path\"", "\"name\"", "\"entries\"",
        "\"type\"", "\"rdp\"", "\"hostname\"", "\"port\"", "\"username\"", "\"password\"", "\"pwd\"",
        "\"allowed_groups\"", "\"description\"", "\"..\"", "\".config\"", "\"a/b\"", "\"recording-path\"",
        "\"ignore-cert\"", "\"hostname\":\"h\""})
    void aFileLoadsSafelyOrFailsNamingWhy(String content) throws IOException {
        if (content == null) {
            return; // a file always has some content, if only none
        }
        Files.writeString(FILE, content, StandardCharsets.UTF_8);
        AddressBook book;
        try {
            book = new FileSource(FILE, Clock.systemUTC()).load();
        } catch (AddressBookException failed) {
            assertTrue(failed.getMessage() != null && !failed.getMessage().isEmpty());
            return;
        }
        for (Folder folder : book.folders()) {
            Names.checkPath(folder.path());
            for (EntryInfo entry : folder.entries()) {
                Names.checkName("entry", entry.name());
                for (String field : entry.json().keySet()) {
                    assertTrue(EntryInfo.isPublic(field) || VIEW_FIELDS.contains(field), "shown: " + field);
                }
                Map<String, Object> stored = new FileSource(FILE, Clock.systemUTC()).readEntry("shared",
                        folder.path(), entry.name());
                try {
                    SessionSpec spec = EntrySpecs.fromStored(stored, DisplaySize.DEFAULT, Map.of());
                    for (String argument : spec.parameters().keySet()) {
                        assertFalse(ArgumentPolicy.isRefused(argument) || ArgumentPolicy.isGatewayOwned(argument),
                                "passed on " + argument);
                    }
                } catch (GatewayException refused) {
                    Refusals.assertPlain(refused, content);
                }
            }
        }
    }
}
