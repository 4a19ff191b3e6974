package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.farmgate.error.ConflictException;

/**
 * People and group mappings in the database. An admin's change is written here first and answered only once
 * written; the cluster's maps then carry it to every node (the database the truth, the maps the fast path).
 */
final class People {

    private static final String PERSON_COLUMNS = "id, subject, name, email, role, role_override, disabled, "
            + "groups_list, first_seen, last_seen";
    private static final String MAPPING_COLUMNS = "id, oidc_group, role, created_at, created_by";

    private final Statements statements;

    People(Statements statements) {
        this.statements = statements;
    }

    List<PersonRow> list(Connection connection) throws SQLException {
        return people(connection, "SELECT " + PERSON_COLUMNS + " FROM people ORDER BY name, id");
    }

    /** The person of that id, or else the only person with that e-mail address (rustguac's paths name them so). */
    Optional<PersonRow> find(Connection connection, String idOrEmail) throws SQLException {
        List<PersonRow> byId = people(connection, "SELECT " + PERSON_COLUMNS + " FROM people WHERE id = ?",
                idOrEmail);
        if (!byId.isEmpty()) {
            return Optional.of(byId.get(0));
        }
        List<PersonRow> byEmail = people(connection, "SELECT " + PERSON_COLUMNS + " FROM people WHERE email = ?",
                idOrEmail);
        if (byEmail.size() > 1) {
            throw new ConflictException("more than one person has the address '" + idOrEmail + "': name them by id");
        }
        return byEmail.stream().findFirst();
    }

    /** Those an admin made an exception of: what a cluster started from nothing needs in its maps. */
    List<PersonRow> exceptions(Connection connection) throws SQLException {
        return people(connection, "SELECT " + PERSON_COLUMNS + " FROM people WHERE disabled OR role_override IS NOT "
                + "NULL");
    }

    Optional<PersonRow> setRole(Connection connection, String idOrEmail, String roleOverride, String by, Instant at)
            throws SQLException {
        return change(connection, idOrEmail, "role_override = ?", roleOverride, by, at);
    }

    Optional<PersonRow> setDisabled(Connection connection, String idOrEmail, boolean disabled, String by, Instant at)
            throws SQLException {
        return change(connection, idOrEmail, "disabled = ?", disabled, by, at);
    }

    Optional<PersonRow> delete(Connection connection, String idOrEmail) throws SQLException {
        Optional<PersonRow> found = find(connection, idOrEmail);
        if (found.isPresent()) {
            statements.update(connection, "DELETE FROM people WHERE id = ?", found.get().id());
        }
        return found;
    }

    private Optional<PersonRow> change(Connection connection, String idOrEmail, String assignment, Object value,
            String by, Instant at) throws SQLException {
        Optional<PersonRow> found = find(connection, idOrEmail);
        if (found.isEmpty()) {
            return found;
        }
        statements.update(connection, "UPDATE people SET " + assignment + ", changed_at = ?, changed_by = ? "
                + "WHERE id = ?", value, Fact.micros(at), by, found.get().id());
        return find(connection, found.get().id());
    }

    List<GroupMapping> mappings(Connection connection) throws SQLException {
        return mappings(connection, "SELECT " + MAPPING_COLUMNS + " FROM group_mappings ORDER BY oidc_group");
    }

    /** The new mapping, or empty when the group has one already. */
    Optional<GroupMapping> addMapping(Connection connection, String group, String role, String by, Instant at)
            throws SQLException {
        int added = statements.update(connection, "INSERT INTO group_mappings (oidc_group, role, created_at, "
                + "created_by) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", group, role, Fact.micros(at), by);
        return added == 0 ? Optional.empty() : mappings(connection, "SELECT " + MAPPING_COLUMNS
                + " FROM group_mappings WHERE oidc_group = ?", group).stream().findFirst();
    }

    /** The mapping as changed, or empty when there is none of that id. */
    Optional<GroupMapping> setMappingRole(Connection connection, long id, String role) throws SQLException {
        statements.update(connection, "UPDATE group_mappings SET role = ? WHERE id = ?", role, id);
        return mapping(connection, id);
    }

    /** The mapping removed, or empty when there was none of that id. */
    Optional<GroupMapping> deleteMapping(Connection connection, long id) throws SQLException {
        Optional<GroupMapping> found = mapping(connection, id);
        if (found.isPresent()) {
            statements.update(connection, "DELETE FROM group_mappings WHERE id = ?", id);
        }
        return found;
    }

    private Optional<GroupMapping> mapping(Connection connection, long id) throws SQLException {
        return mappings(connection, "SELECT " + MAPPING_COLUMNS + " FROM group_mappings WHERE id = ?", id).stream()
                .findFirst();
    }

    private List<PersonRow> people(Connection connection, String sql, Object... values) throws SQLException {
        List<PersonRow> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, sql, values);
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String groups = rows.getString(8);
                out.add(new PersonRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        rows.getString(5), rows.getString(6), rows.getBoolean(7),
                        groups.isEmpty() ? List.of() : Arrays.asList(groups.split("\n")), Reports.instant(rows, 9),
                        Reports.instant(rows, 10)));
            }
        }
        return out;
    }

    private List<GroupMapping> mappings(Connection connection, String sql, Object... values) throws SQLException {
        List<GroupMapping> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, sql, values);
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                out.add(new GroupMapping(rows.getLong(1), rows.getString(2), rows.getString(3),
                        Reports.instant(rows, 4), rows.getString(5)));
            }
        }
        return out;
    }
}
