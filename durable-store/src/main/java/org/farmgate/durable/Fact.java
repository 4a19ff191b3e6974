package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * Something that happened and must be written down: a step of a session's history or an audit event. Facts are
 * appended without waiting ({@link DurableStore#record}) and land in the database once each, in the order a node
 * recorded them, however long the database is away (the {@link Outbox} holds them, then its spool file).
 *
 * <p>Every fact carries its own id, and every write of one is idempotent by it or by the row's state (a session row
 * is inserted once, closed once): a batch whose commit was not acknowledged is simply written again.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "fact")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Fact.SessionOpened.class, name = "session_opened"),
        @JsonSubTypes.Type(value = Fact.SessionAttached.class, name = "session_attached"),
        @JsonSubTypes.Type(value = Fact.SessionClosed.class, name = "session_closed"),
        @JsonSubTypes.Type(value = Fact.WatcherJoined.class, name = "watcher_joined"),
        @JsonSubTypes.Type(value = Fact.WatcherLeft.class, name = "watcher_left"),
        @JsonSubTypes.Type(value = Fact.NodeRestarted.class, name = "node_restarted"),
        @JsonSubTypes.Type(value = Fact.TokenRevoked.class, name = "token_revoked"),
        @JsonSubTypes.Type(value = Fact.PersonSignedIn.class, name = "person_signed_in"),
        @JsonSubTypes.Type(value = Fact.HostKeyKept.class, name = "host_key_kept"),
        @JsonSubTypes.Type(value = Fact.HostKeyForgotten.class, name = "host_key_forgotten"),
        @JsonSubTypes.Type(value = Fact.RecordingStarted.class, name = "recording_started"),
        @JsonSubTypes.Type(value = Fact.RecordingPart.class, name = "recording_part"),
        @JsonSubTypes.Type(value = Fact.RecordingJoined.class, name = "recording_joined"),
        @JsonSubTypes.Type(value = Fact.RecordingEnded.class, name = "recording_ended"),
        @JsonSubTypes.Type(value = Fact.RecordingDeleted.class, name = "recording_deleted"),
        @JsonSubTypes.Type(value = AuditEvent.class, name = "audit")})
public sealed interface Fact permits Fact.SessionOpened, Fact.SessionAttached, Fact.SessionClosed,
        Fact.WatcherJoined, Fact.WatcherLeft, Fact.NodeRestarted, Fact.TokenRevoked, Fact.PersonSignedIn,
        Fact.HostKeyKept, Fact.HostKeyForgotten, Fact.RecordingStarted, Fact.RecordingPart, Fact.RecordingJoined, Fact.RecordingEnded,
        Fact.RecordingDeleted, AuditEvent {

    /** The database keeps microseconds; a fact keeps what the database will, so that hashes agree. */
    static Instant micros(Instant at) {
        return at.truncatedTo(ChronoUnit.MICROS);
    }

    static String newId() {
        return UUID.randomUUID().toString();
    }

    /** A session placed and opened on its node: its history row. */
    record SessionOpened(SessionRow row) implements Fact {
    }

    /** A client attached: the row turns active (once it is, it stays so until closed). */
    record SessionAttached(String sessionId) implements Fact {
    }

    /**
     * The session ended, was deleted or was lost with its node: its row is closed, once, by whichever close lands
     * first. The row comes along, so that a close whose opening never landed (its node died with it in memory)
     * still leaves a row.
     */
    record SessionClosed(SessionRow row, Instant endedAt, String status, String endReason, String endedBy,
            String endDetail, Long bytesToClient, Long bytesFromClient) implements Fact {

        public SessionClosed {
            endedAt = micros(endedAt);
        }
    }

    /** Someone joined a session by a share link. */
    record WatcherJoined(String joinId, String sessionId, String watcherName, String shareId, boolean readOnly,
            Instant joinedAt) implements Fact {

        public WatcherJoined {
            joinedAt = micros(joinedAt);
        }
    }

    /** A watcher's tunnel ended (or their session did). */
    record WatcherLeft(String joinId, Instant leftAt, String reason) implements Fact {

        public WatcherLeft {
            leftAt = micros(leftAt);
        }
    }

    /**
     * A node started: every row it had left open is closed as lost (it holds none of those sessions any more).
     * Rows of sessions it opened since are not touched.
     */
    record NodeRestarted(String nodeId, Instant startedAt) implements Fact {

        public NodeRestarted {
            startedAt = micros(startedAt);
        }
    }

    /**
     * A token was revoked: it is refused at once by the cluster, and this makes the refusal outlive it. A fact, not
     * an operation, so that a revocation made while the database is away is not lost (it waits in the spool).
     */
    record TokenRevoked(String tokenId, Instant at, String by) implements Fact {

        public TokenRevoked {
            at = micros(at);
        }
    }

    /**
     * A person signed in: their row made at their first sign-in, brought up to date at each (name, address, groups,
     * the role they got, last seen). A fact, so that signing in never waits on the database.
     */
    record PersonSignedIn(String personId, String subject, String name, String email, String role,
            List<String> groups, Instant at) implements Fact {

        public PersonSignedIn {
            groups = groups.stream().filter(group -> group.indexOf('\n') < 0).toList();
            at = micros(at);
        }
    }

    /**
     * An SSH host key trusted (on first use, or pinned by an admin). A fact, like a revocation: the cluster's map
     * holds it at once, and the database keeps it however long it is away, for a cluster started from nothing.
     */
    record HostKeyKept(HostKeyRow row) implements Fact {

        public HostKeyKept {
            row = new HostKeyRow(row.host(), row.port(), row.hostKey(), row.fingerprint(), row.how(), row.by(),
                    row.sessionId(), micros(row.at()));
        }
    }

    /** An admin forgot a host's key: the next session there trusts (or, strictly, refuses) what it is shown. */
    record HostKeyForgotten(String host, int port, String by, Instant at) implements Fact {

        public HostKeyForgotten {
            at = micros(at);
        }
    }

    /** A session's recording began: where it goes, and the upload any node can complete. */
    record RecordingStarted(String sessionId, String storageKey, String uploadId, String nodeId, Instant startedAt,
            boolean keysIncluded) implements Fact {

        public RecordingStarted {
            startedAt = micros(startedAt);
        }
    }

    /** Part {@code number} (from 1) of a recording was uploaded; its tag completes the upload. */
    record RecordingPart(String sessionId, int number, String tag, long bytes) implements Fact {
    }

    /**
     * Someone joined a recorded session while it ran: a watcher by a share link ({@code shared}), or its own user on
     * a connection of their own. Their display is the session's, recorded once; the join is noted beside it.
     */
    record RecordingJoined(String sessionId, String who, boolean shared, Instant at) implements Fact {

        public RecordingJoined {
            at = micros(at);
        }
    }

    /**
     * A recording ended: complete, or incomplete with why; {@code sizeBytes} is the object's size, or -1 when only
     * its parts' sum is known.
     */
    record RecordingEnded(String sessionId, Instant endedAt, boolean complete, String detail, long sizeBytes)
            implements Fact {

        public RecordingEnded {
            endedAt = micros(endedAt);
        }
    }

    /** A recording was deleted from storage, by a person or by retention. */
    record RecordingDeleted(String sessionId, Instant at, String by, String why) implements Fact {

        public RecordingDeleted {
            at = micros(at);
        }
    }
}
