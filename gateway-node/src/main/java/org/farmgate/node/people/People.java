package org.farmgate.node.people;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.GroupMapping;
import org.farmgate.durable.Operation;
import org.farmgate.durable.PersonRow;
import org.farmgate.error.ConflictException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.LoginSessions;
import org.farmgate.node.auth.TokenService;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;

/**
 * The people who sign in and the group mappings an admin edits at run time. The database is the truth: a change is
 * written there first and answered only once written (a database that is away refuses it, 503). The cluster's maps
 * are the fast path: a sign-in reads the person's {@link Standing} and the mappings from them and never waits on the
 * database; a cluster started from nothing gets them back by {@link #restore} before it trusts them.
 *
 * <p>Taking a role away or disabling a person takes effect at once everywhere: their logins end on every node (the
 * next sign-in gets the new role, or none), and disabling or deleting them revokes their personal tokens. Enabling
 * them again gives no token back.
 */
public final class People {

    private static final String NO_DATABASE = "people and group mappings are kept in the database, and this node "
            + "has none (GW_DB_URL=none)";

    private final DurableStore store;
    private final SharedMap<String, Standing> standings;
    private final SharedMap<String, MappedRole> mappings;
    private final LoginSessions logins;
    private final TokenService tokens;
    private final Clock clock;

    public People(DurableStore store, SharedMap<String, Standing> standings, SharedMap<String, MappedRole> mappings,
            LoginSessions logins, TokenService tokens, Clock clock) {
        this.store = store;
        this.standings = standings;
        this.mappings = mappings;
        this.logins = logins;
        this.tokens = tokens;
        this.clock = clock;
    }

    /** What an admin decided about the person; null when nothing. */
    public CompletionStage<Standing> standing(String personId) {
        return standings.get(personId);
    }

    /** The run-time mappings, group to role. */
    public CompletionStage<Map<String, Role>> mappedRoles() {
        return mappings.query(Query.<MappedRole>all()).thenApply(all -> all.stream()
                .collect(Collectors.toMap(MappedRole::group, MappedRole::role, (a, b) -> a)));
    }

    /** Keeps the sign-in (first and last seen, name, address, groups, the role given), without waiting. */
    public void signedIn(Identity person) {
        store.record(new Fact.PersonSignedIn(person.id(), person.id().substring(Identity.PERSON_PREFIX.length()),
                person.name(), person.email(), person.role().wireName(), List.copyOf(person.groups()),
                clock.instant()));
    }

    public CompletionStage<List<PersonRow>> list() {
        return run(Operation.people());
    }

    public CompletionStage<PersonRow> find(String idOrEmail) {
        return run(Operation.person(idOrEmail)).thenApply(found -> found.orElseThrow(() -> notFound(idOrEmail)));
    }

    /** A role of the person's own, or (null) their groups' again; their logins end, so that it applies at once. */
    public CompletionStage<PersonRow> setRole(String idOrEmail, Role role, String by) {
        return run(Operation.setRole(idOrEmail, role == null ? null : role.wireName(), by, clock.instant()))
                .thenCompose(found -> applied(found, idOrEmail, by));
    }

    public CompletionStage<PersonRow> setDisabled(String idOrEmail, boolean disabled, String by) {
        return run(Operation.setDisabled(idOrEmail, disabled, by, clock.instant()))
                .thenCompose(found -> applied(found, idOrEmail, by));
    }

    /**
     * Forgets the person (their row; their history and audit rows stay) and ends what they hold. They may sign in
     * again if their groups let them: to keep someone out, disable them.
     */
    public CompletionStage<PersonRow> delete(String idOrEmail, String by) {
        return run(Operation.deletePerson(idOrEmail)).thenCompose(found -> {
            PersonRow person = found.orElseThrow(() -> notFound(idOrEmail));
            return standings.remove(person.id()).thenCompose(ignored -> cutOff(person.id(), true, by))
                    .thenApply(ignored -> person);
        });
    }

    private CompletionStage<PersonRow> applied(Optional<PersonRow> found, String idOrEmail, String by) {
        PersonRow person = found.orElseThrow(() -> notFound(idOrEmail));
        Standing standing = new Standing(person.roleOverride() == null ? null : Role.parse(person.roleOverride()),
                person.disabled());
        CompletionStage<?> kept = standing.isException() ? standings.set(person.id(), standing)
                : standings.remove(person.id());
        return kept.thenCompose(ignored -> cutOff(person.id(), person.disabled(), by)).thenApply(ignored -> person);
    }

    /** Their logins end everywhere; their personal tokens too, when they are to have none. */
    private CompletionStage<Void> cutOff(String personId, boolean tokensToo, String by) {
        CompletionStage<Integer> ended = logins.endAll(personId);
        return tokensToo ? ended.thenCompose(ignored -> tokens.revokeOwnedBy(personId, by)).thenApply(ignored -> null)
                : ended.thenApply(ignored -> null);
    }

    public CompletionStage<List<GroupMapping>> mappings() {
        return run(Operation.groupMappings());
    }

    public CompletionStage<GroupMapping> addMapping(String group, Role role, String by) {
        return run(Operation.addGroupMapping(group, role.wireName(), by, clock.instant())).thenCompose(added -> {
            GroupMapping mapping = added.orElseThrow(() -> new ConflictException("group '" + group
                    + "' is mapped already: change its mapping instead"));
            return mappings.set(group, new MappedRole(mapping.id(), group, role)).thenApply(ignored -> mapping);
        });
    }

    public CompletionStage<GroupMapping> setMappingRole(long id, Role role) {
        return run(Operation.setGroupMappingRole(id, role.wireName())).thenCompose(changed -> {
            GroupMapping mapping = changed.orElseThrow(() -> new NotFoundException("no group mapping " + id));
            return mappings.set(mapping.group(), new MappedRole(id, mapping.group(), role))
                    .thenApply(ignored -> mapping);
        });
    }

    public CompletionStage<GroupMapping> deleteMapping(long id) {
        return run(Operation.deleteGroupMapping(id)).thenCompose(removed -> {
            GroupMapping mapping = removed.orElseThrow(() -> new NotFoundException("no group mapping " + id));
            return mappings.remove(mapping.group()).thenApply(ignored -> mapping);
        });
    }

    /**
     * Puts the database's exceptions and mappings into a cluster whose maps start empty.
     *
     * @return how many were put back
     */
    public CompletionStage<Integer> restore() {
        return run(Operation.peopleExceptions()).thenCompose(people -> {
            Map<String, Standing> all = new HashMap<>();
            for (PersonRow person : people) {
                all.put(person.id(), new Standing(person.roleOverride() == null ? null
                        : Role.parse(person.roleOverride()), person.disabled()));
            }
            CompletionStage<Integer> put = CompletableFuture.completedFuture(0);
            for (Map.Entry<String, Standing> each : all.entrySet()) {
                put = put.thenCompose(count -> standings.set(each.getKey(), each.getValue())
                        .thenApply(ignored -> count + 1));
            }
            return put;
        }).thenCompose(people -> run(Operation.groupMappings()).thenCompose(rows -> {
            CompletionStage<Integer> put = CompletableFuture.completedFuture(people);
            for (GroupMapping row : rows) {
                put = put.thenCompose(count -> mappings.set(row.group(), new MappedRole(row.id(), row.group(),
                        Role.parse(row.role()))).thenApply(ignored -> count + 1));
            }
            return put;
        }));
    }

    private <T> CompletionStage<T> run(Operation<T> operation) {
        if (!store.configured()) {
            return CompletableFuture.failedFuture(new UnavailableException(NO_DATABASE));
        }
        return store.run(operation);
    }

    private static NotFoundException notFound(String idOrEmail) {
        return new NotFoundException("no person '" + idOrEmail + "' has signed in here");
    }
}
