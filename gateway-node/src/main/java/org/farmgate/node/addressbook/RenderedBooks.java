package org.farmgate.node.addressbook;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.farmgate.model.Json;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.node.auth.Identity;

/**
 * The body of {@code GET /api/addressbook}, rendered once per copy of the book and per audience (admins, or one
 * set of groups). Rendering a thousand entries cost more than all the rest of
 * the request (bench/RESULTS.md, issue 4), and ran on the event loop. A copy is known by when it was loaded and
 * why its refresh failed, if it did: the two things that change whenever the book does.
 */
public final class RenderedBooks {

    /** Audiences are few in practice; a flood of distinct group sets only costs re-rendering. */
    private static final int MOST_AUDIENCES = 64;

    private record Renderings(AddressBook book, Map<String, Rendering> byAudience) {
    }

    /**
     * One audience's body, as JSON and gzipped: compressed once per copy, not per request. The book is ~300 KB for a
     * thousand entries and a tenth of that gzipped (what a browser downloads every time the book changed). It holds
     * no secret and nothing the requester chose, so compressing it leaks nothing (BREACH needs both).
     */
    public record Rendering(byte[] json, byte[] gzip) {
    }

    private volatile Renderings current = new Renderings(null, Map.of());

    public Rendering render(Identity who, AddressBook book) {
        Renderings renderings = current;
        if (renderings.book() == null || !renderings.book().loadedAt().equals(book.loadedAt())
                || !Objects.equals(renderings.book().error(), book.error())) {
            renderings = new Renderings(book, new ConcurrentHashMap<>());
            current = renderings;
        }
        Map<String, Rendering> byAudience = renderings.byAudience();
        if (byAudience.size() >= MOST_AUDIENCES) {
            byAudience.clear();
        }
        return byAudience.computeIfAbsent(audience(who), key -> {
            byte[] json = body(who, book);
            return new Rendering(json, gzip(json));
        });
    }

    /** The fastest level: JSON this repetitive shrinks about ten-fold even so, in a few milliseconds once per copy. */
    private static byte[] gzip(byte[] json) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length / 8 + 64);
        try (GZIPOutputStream zip = new GZIPOutputStream(out, 8192) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            zip.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException("compressing in memory", e);
        }
        return out.toByteArray();
    }

    /**
     * A validator of the body {@link #render} gives {@code who} for {@code book}: the copy (when it was loaded, why its
     * refresh failed) and the audience. A page that asks again with it gets a 304 and no body, instead of the whole
     * book every few seconds.
     */
    public String etag(Identity who, AddressBook book, boolean gzip) {
        // One validator per representation: the gzipped body is another entity than the plain one.
        return "\"" + book.loadedAt().toEpochMilli() + "-" + Integer.toHexString(Objects.hash(book.loadedAt(),
                book.error(), audience(who))) + (gzip ? "-gzip" : "") + "\"";
    }

    /** Everything the answer depends on besides the book: what FolderAccess looks at. */
    private static String audience(Identity who) {
        return who.isAdmin() ? "admin" : "groups:" + String.join("\n", new TreeSet<>(who.groups()));
    }

    private static byte[] body(Identity who, AddressBook book) {
        List<Folder> visible = book.folders().stream().filter(f -> FolderAccess.allows(who, f, book)).toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("folders", visible);
        body.put("unavailable_scopes", List.of());
        body.put("loaded_at", book.loadedAt());
        body.put("stale", book.error() != null);
        if (book.error() != null) {
            body.put("error", "the source could not be read; this is the copy of " + book.loadedAt() + ": "
                    + book.error());
        }
        try {
            return Json.mapper().writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the address book is not serialisable", e);
        }
    }
}
