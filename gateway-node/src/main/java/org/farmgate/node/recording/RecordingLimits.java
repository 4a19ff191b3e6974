package org.farmgate.node.recording;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.router.addressbook.AddressBookCache;

/** Each entry's {@code max_recordings} (rustguac's field), for retention. */
public final class RecordingLimits {

    private RecordingLimits() {
    }

    /** By folder path and entry name ({@code path/name}), as a session's history row names its entry. */
    public static CompletionStage<Map<String, Integer>> perEntry(AddressBookCache cache) {
        return cache.read().thenApply(RecordingLimits::perEntry);
    }

    static Map<String, Integer> perEntry(AddressBook book) {
        Map<String, Integer> limits = new HashMap<>();
        for (Folder folder : book.folders()) {
            for (EntryInfo entry : folder.entries()) {
                Object max = entry.fields().get("max_recordings");
                if (max instanceof Number number && number.intValue() > 0) {
                    limits.put(folder.path() + "/" + entry.name(), number.intValue());
                }
            }
        }
        return limits;
    }
}
