package org.farmgate.durable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.farmgate.error.InvalidRequestException;

/**
 * rustguac 1.9's SQLite database, read once and written into this store, so that people who leave rustguac keep their
 * reports, people, mappings, tokens and audit trail. Idempotent: what was imported before is skipped, so an import
 * that stopped half-way is simply run again.
 *
 * <p>What rustguac keeps and how it lands here (its schema: {@code init_db} in rustguac's {@code src/db.rs}, v1.9.7):
 * <ul>
 * <li>{@code session_history}: history rows of node {@code rustguac}, through the same writes as a closed session
 *     (so the daily totals count them). A row rustguac left {@code active} with no end (its process stopped while the
 *     session ran) is closed as {@code lost}, its end unknown: it ends when it started, rather than now.</li>
 * <li>{@code users}: people, by their subject (one without a subject is skipped: their next sign-in could not find
 *     them). rustguac gives everyone who signs in its default role unless a mapping matches; here nobody has a role
 *     their groups do not give, so a role that differs from what rustguac's mappings give their groups is kept as a
 *     role of their own. {@code disabled} is kept.</li>
 * <li>{@code group_role_mappings}: run-time mappings (a group mapped here already keeps its mapping).</li>
 * <li>{@code admins} (admin API keys) and {@code user_api_tokens}: tokens, by their hash (SHA-256 of the token, as
 *     here), so every key keeps working unchanged. Skipped and named: disabled or expired ones, and admin keys limited
 *     to addresses ({@code allowed_ips}), which a token here cannot be: make them again.</li>
 * <li>{@code token_audit_log}, {@code addressbook_audit_log}: appended to the audit chain as {@code rustguac.*}
 *     events at their own times.</li>
 * </ul>
 */
public final class RustguacImport {

    static final String NODE = "rustguac";
    private static final DateTimeFormatter SQLITE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private static final List<String> ROLES = List.of("viewer", "operator", "poweruser", "admin");

    /**
     * What an import did: how many of each were written, how many skipped and why, and when the oldest imported
     * session started (null without any), which the retention purge may find too old to keep.
     */
    public record Imported(int sessions, int people, int mappings, int tokens, int auditEvents,
            List<String> skipped, Instant oldestSession) {
    }

    private record Sessions(int count, Instant oldest) {
    }

    private final FactWriter writer;
    private final Statements statements;

    RustguacImport(FactWriter writer, Statements statements) {
        this.writer = writer;
        this.statements = statements;
    }

    Imported run(Connection target, Path sqlite, Instant now) throws SQLException {
        if (!Files.isRegularFile(sqlite)) {
            throw new InvalidRequestException("no rustguac database at " + sqlite + " (rustguac's db_path, "
                    + "/opt/rustguac/data/rustguac.db when installed from its package)");
        }
        Properties readOnly = new Properties();
        readOnly.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: never create or change rustguac's file
        try (Connection source = DriverManager.getConnection("jdbc:sqlite:" + sqlite, readOnly)) {
            List<String> skipped = new ArrayList<>();
            Map<String, String> mappings = mappings(source);
            Map<String, Person> people = people(source);
            int mapped = importMappings(target, source, now);
            int persons = importPeople(target, people, mappings, skipped, now);
            Sessions sessions = importSessions(target, source, people);
            int tokens = importAdminKeys(target, source, now, skipped) + importUserTokens(target, source, people, now,
                    skipped);
            int events = importAudit(target, source);
            return new Imported(sessions.count(), persons, mapped, tokens, events, skipped, sessions.oldest());
        } catch (SQLException e) {
            if (e.getClass().getName().startsWith("org.sqlite")) {
                throw new InvalidRequestException("cannot read rustguac's database " + sqlite + ": " + e.getMessage());
            }
            throw e;
        }
    }

    /** A rustguac user as it lands here. */
    private record Person(long rowId, String id, String email, String name, String role, boolean disabled,
            List<String> groups, Instant firstSeen, Instant lastSeen) {
    }

    private static Map<String, String> mappings(Connection source) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (ResultSet rows = source.createStatement().executeQuery("SELECT oidc_group, role FROM "
                + "group_role_mappings")) {
            while (rows.next()) {
                out.put(rows.getString(1), rows.getString(2));
            }
        }
        return out;
    }

    private static Map<String, Person> people(Connection source) throws SQLException {
        Map<String, Person> byEmail = new HashMap<>();
        try (ResultSet rows = source.createStatement().executeQuery("SELECT id, email, oidc_subject, name, role, "
                + "disabled, oidc_groups, created_at, last_login_at FROM users")) {
            while (rows.next()) {
                String subject = rows.getString(3);
                String groups = rows.getString(7);
                Instant first = time(rows.getString(8));
                byEmail.put(rows.getString(2), new Person(rows.getLong(1), subject == null || subject.isBlank() ? null
                        : "oidc:" + subject, rows.getString(2), rows.getString(4), role(rows.getString(5)),
                        rows.getInt(6) != 0, groups == null || groups.isEmpty() ? List.of()
                                : Arrays.asList(groups.split(",")), first, orElse(time(rows.getString(9)), first)));
            }
        }
        return byEmail;
    }

    private int importMappings(Connection target, Connection source, Instant now) throws SQLException {
        int count = 0;
        try (ResultSet rows = source.createStatement().executeQuery("SELECT oidc_group, role, created_at FROM "
                + "group_role_mappings")) {
            while (rows.next()) {
                count += statements.update(target, "INSERT INTO group_mappings (oidc_group, role, created_at, "
                        + "created_by) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", rows.getString(1), role(rows
                        .getString(2)), orElse(time(rows.getString(3)), now), NODE);
            }
        }
        return count;
    }

    private int importPeople(Connection target, Map<String, Person> people, Map<String, String> mappings,
            List<String> skipped, Instant now) throws SQLException {
        int count = 0;
        for (Person person : people.values()) {
            if (person.id() == null) {
                skipped.add("person " + person.email() + ": rustguac knows no OIDC subject of theirs");
                continue;
            }
            String fromGroups = person.groups().stream().map(mappings::get).filter(Objects::nonNull)
                    .map(RustguacImport::role)
                    .max((a, b) -> ROLES.indexOf(a) - ROLES.indexOf(b)).orElse(null);
            String override = person.role().equals(fromGroups) ? null : person.role();
            Instant first = orElse(person.firstSeen(), now);
            count += statements.update(target, "INSERT INTO people (id, subject, name, email, role, role_override, "
                    + "disabled, groups_list, first_seen, last_seen, changed_at, changed_by) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", person.id(),
                    person.id().substring("oidc:".length()), person.name() == null || person.name().isEmpty()
                            ? person.email() : person.name(), person.email(), person.role(), override,
                    person.disabled(), String.join("\n", person.groups()), Fact.micros(first),
                    Fact.micros(orElse(person.lastSeen(), first)), Fact.micros(now), NODE);
        }
        return count;
    }

    private Sessions importSessions(Connection target, Connection source, Map<String, Person> people)
            throws SQLException {
        List<Fact> batch = new ArrayList<>();
        int count = 0;
        Instant oldest = null;
        try (ResultSet rows = source.createStatement().executeQuery("SELECT session_id, session_type, hostname, port, "
                + "username, created_by, address_book_entry, address_book_folder, entry_display_name, started_at, "
                + "ended_at, status FROM session_history ORDER BY id")) {
            while (rows.next()) {
                String createdBy = rows.getString(6);
                Person person = people.get(createdBy);
                Instant started = time(rows.getString(10));
                Instant ended = time(rows.getString(11));
                int port = rows.getInt(4);
                SessionRow row = SessionRow.opened(rows.getString(1), rows.getString(2), rows.getString(3),
                        rows.wasNull() ? null : port, rows.getString(5), createdBy, rows.getString(7),
                        rows.getString(8), rows.getString(9), started, "active", person != null && person.id() != null
                                ? person.id() : NODE + ":" + createdBy,
                        createdBy != null && createdBy.contains("@") ? createdBy : null, NODE, null);
                String status = rows.getString(12);
                boolean lost = ended == null;
                String closedAs = lost ? "lost" : "error".equals(status) ? "error" : "completed";
                batch.add(new Fact.SessionClosed(row, lost ? started : ended, closedAs, closedAs, null,
                        lost ? "left open by rustguac: its end is unknown" : "imported from rustguac", null, null));
                count++;
                oldest = started != null && (oldest == null || started.isBefore(oldest)) ? started : oldest;
                if (batch.size() == 500) {
                    writer.write(target, batch);
                    batch.clear();
                }
            }
        }
        writer.write(target, batch);
        return new Sessions(count, oldest);
    }

    private int importAdminKeys(Connection target, Connection source, Instant now, List<String> skipped)
            throws SQLException {
        int count = 0;
        try (ResultSet rows = source.createStatement().executeQuery("SELECT id, name, api_key_hash, allowed_ips, "
                + "expires_at, disabled, created_at FROM admins")) {
            while (rows.next()) {
                String name = rows.getString(2);
                String allowed = rows.getString(4);
                Instant expires = expiry(rows.getString(5));
                if (allowed != null && !allowed.isBlank()) {
                    skipped.add("admin key " + name + ": limited to " + allowed + ", which a token here cannot be");
                } else if (rows.getInt(6) != 0 || expires != null && !expires.isAfter(now)) {
                    skipped.add("admin key " + name + ": disabled or expired");
                } else {
                    count += token(target, "rgk_" + rows.getLong(1), name, rows.getString(3), "admin", List.of(),
                            orElse(time(rows.getString(7)), now), expires, null);
                }
            }
        }
        return count;
    }

    private int importUserTokens(Connection target, Connection source, Map<String, Person> people, Instant now,
            List<String> skipped) throws SQLException {
        Map<Long, Person> byRow = new HashMap<>();
        people.values().forEach(person -> byRow.put(person.rowId(), person));
        int count = 0;
        try (ResultSet rows = source.createStatement().executeQuery("SELECT id, user_id, name, token_hash, max_role, "
                + "expires_at, disabled, created_at FROM user_api_tokens")) {
            while (rows.next()) {
                Person person = byRow.get(rows.getLong(2));
                String name = rows.getString(3);
                Instant expires = expiry(rows.getString(6));
                if (person == null || person.id() == null) {
                    skipped.add("token " + name + ": its person was not imported");
                } else if (rows.getInt(7) != 0 || person.disabled() || expires != null && !expires.isAfter(now)) {
                    skipped.add("token " + name + " of " + person.email() + ": it or its person disabled, or "
                            + "expired");
                } else {
                    String max = rows.getString(5);
                    String role = person.role();
                    if (max != null && ROLES.indexOf(role(max)) < ROLES.indexOf(role)) {
                        role = role(max);
                    }
                    count += token(target, "rgu_" + rows.getLong(1), person.email().replaceAll("[^A-Za-z0-9._@-]",
                            "_") + "." + name, rows.getString(4), role, person.groups(),
                            orElse(time(rows.getString(8)), now), expires, person.id());
                }
            }
        }
        return count;
    }

    private int token(Connection target, String id, String name, String hash, String role, List<String> groups,
            Instant created, Instant expires, String owner) throws SQLException {
        return statements.update(target, "INSERT INTO api_tokens (id, name, hash, role, groups_list, created_at, "
                + "expires_at, created_by, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", id,
                name, hash.toLowerCase(Locale.ROOT), role, String.join("\n", groups), Fact.micros(created),
                expires == null ? null : Fact.micros(expires), NODE, owner);
    }

    private int importAudit(Connection target, Connection source) throws SQLException {
        List<Fact> events = new ArrayList<>();
        try (ResultSet rows = source.createStatement().executeQuery("SELECT id, token_name, user_email, action, "
                + "ip_addr, details, created_at FROM token_audit_log ORDER BY id")) {
            while (rows.next()) {
                events.add(new AuditEvent("rustguac-token-" + rows.getLong(1), time(rows.getString(7)),
                        "rustguac.token." + rows.getString(4), AuditEvent.SUCCESS, null, rows.getString(3), null,
                        rows.getString(5), rows.getString(2), rows.getString(6), NODE));
            }
        }
        try (ResultSet rows = source.createStatement().executeQuery("SELECT id, user_email, action, scope, "
                + "folder_path, entry_name, ip_addr, details, created_at FROM addressbook_audit_log ORDER BY id")) {
            while (rows.next()) {
                String entry = rows.getString(6);
                events.add(new AuditEvent("rustguac-addressbook-" + rows.getLong(1), time(rows.getString(9)),
                        "rustguac.addressbook." + rows.getString(3), AuditEvent.SUCCESS, null, rows.getString(2),
                        null, rows.getString(7), rows.getString(4) + "/" + rows.getString(5)
                                + (entry == null ? "" : "/" + entry), rows.getString(8), NODE));
            }
        }
        int before = events.size();
        for (int from = 0; from < events.size(); from += 500) {
            writer.write(target, events.subList(from, Math.min(events.size(), from + 500)));
        }
        return before;
    }

    private static String role(String rustguac) {
        String role = rustguac == null ? "viewer" : rustguac.toLowerCase(Locale.ROOT);
        return ROLES.contains(role) ? role : "viewer";
    }

    private static Instant orElse(Instant value, Instant otherwise) {
        return value == null ? otherwise : value;
    }

    /** rustguac's times: SQLite's {@code datetime('now')}, UTC without a zone ({@code 2030-01-01 00:00:00}). */
    static Instant time(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return LocalDateTime.parse(text.trim(), SQLITE_TIME).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return expiry(text);
        }
    }

    /**
     * An expiry as rustguac takes it: RFC 3339, {@code yyyy-MM-dd HH:mm:ss} or with a {@code T} (UTC), or a day (its
     * last second). One that none of them reads is expired, as rustguac has it.
     */
    static Instant expiry(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String value = text.trim();
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            // not RFC 3339: the forms without a zone
        }
        try {
            return LocalDateTime.parse(value.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            // not a time of day
        }
        try {
            return LocalDate.parse(value).atTime(23, 59, 59).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }
}
