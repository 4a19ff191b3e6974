package org.farmgate.node.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.Operation;
import org.farmgate.durable.RecordingFilter;
import org.farmgate.durable.RecordingRow;
import org.farmgate.error.ConflictException;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.Responses;
import org.farmgate.node.recording.LivePlayback;
import org.farmgate.node.recording.Recordings;
import org.farmgate.recording.RecordingStorage;

/**
 * rustguac's recordings routes, for a cluster: {@code GET /api/recordings} lists the index (filters, pages),
 * {@code GET /api/recordings/{name}} streams one from storage with HTTP ranges, and {@code DELETE} removes one.
 * Any node answers any of them: the recording is in shared storage and the index in the database. A session's
 * recording plays while the session runs too, up to what reached its node's disk ({@link LivePlayback}); the
 * response says which ({@code X-Recording-State}).
 *
 * <p>Who may watch: admins and auditors every recording; a session's owner theirs only where the site allows it
 * ({@code GW_RECORDING_OWNER_ACCESS}). Every playback is an audit event ({@code recording.play}; the player's later
 * ranges of the same file are not events again), every deletion too. A recording is streamed as storage gives it,
 * one 64 KiB read at a time on a worker and the next only once the response's queue has room, so a slow viewer
 * holds one chunk, never the file.
 */
public final class RecordingsApi {

    private static final Pattern NAME = Pattern.compile("([A-Za-z0-9-]{1,64})(\\.guac)?");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");
    private static final int CHUNK = 64 * 1024;

    private final Vertx vertx;
    private final DurableStore store;
    private final Recordings recordings;
    private final LivePlayback live;
    private final Clock clock;

    /** @param recordings null when this node records nothing (then only the index is read), and so is live */
    public RecordingsApi(Vertx vertx, DurableStore store, Recordings recordings, LivePlayback live, Clock clock) {
        this.vertx = vertx;
        this.store = store;
        this.recordings = recordings;
        this.live = live;
        this.clock = clock;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/recordings").handler(auth.require(Role.VIEWER)).handler(this::list);
        router.get("/api/recordings/:name").handler(auth.require(Role.VIEWER)).handler(this::play);
        router.head("/api/recordings/:name").handler(auth.require(Role.VIEWER)).handler(this::play);
        router.delete("/api/recordings/:name").handler(auth.require(Role.ADMIN)).handler(this::delete);
    }

    private void list(RoutingContext ctx) {
        RecordingFilter filter = scoped(ctx, new ReportQuery(ctx.queryParams(), ReportQuery.RECORDING_PARAMETERS)
                .recordings());
        await(store.run(Operation.recordings(filter))).onFailure(ctx::fail).onSuccess(page -> {
            ctx.response().putHeader("X-Total-Count", String.valueOf(page.total()));
            Responses.json(ctx, 200, page.rows().stream().map(RecordingsApi::listed).toList());
        });
    }

    /** A row as rustguac's list has it ({@code name}, {@code size_bytes}, {@code modified}, {@code user}), and more. */
    private static Map<String, Object> listed(RecordingRow row) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", row.name());
        out.put("size_bytes", row.sizeBytes());
        out.put("modified", row.endedAt() != null ? row.endedAt() : row.startedAt());
        out.put("created_at", row.startedAt());
        out.put("user", row.createdByEmail() != null ? row.createdByEmail() : row.createdBy());
        out.put("address_book_entry", row.entry());
        out.put("folder", row.folder());
        out.put("entry_display_name", row.displayName());
        out.put("session_type", row.sessionType());
        out.put("session_id", row.sessionId());
        out.put("hostname", row.hostname());
        out.put("node_id", row.nodeId());
        out.put("ended_at", row.endedAt());
        out.put("keys_included", row.keysIncluded());
        out.put("parts", row.parts());
        out.put("joins", row.joins());
        out.put("state", row.state());
        out.put("state_detail", row.stateDetail());
        return out;
    }

    /** What a playback reads: bytes {@code first} to {@code last}, inclusive. Blocking: a worker's. */
    private interface Opener {
        InputStream open(long first, long last) throws IOException;
    }

    /** A recording to play: its row, its size when the playback began, and how to read it. */
    private record Playable(RecordingRow row, long size, Opener opener) {
    }

    private void play(RoutingContext ctx) {
        String id = sessionId(ctx);
        Identity who = Authenticator.identity(ctx);
        await(store.run(Operation.recording(id))).map(found -> found.filter(row -> visible(who, row))
                .filter(row -> !RecordingRow.DELETED.equals(row.state()))
                .orElseThrow(() -> new NotFoundException("no recording " + id)))
                .compose(row -> RecordingRow.RECORDING.equals(row.state()) ? running(row) : stored(row))
                .onFailure(ctx::fail).onSuccess(playable -> {
                    try {
                        serve(ctx, playable);
                    } catch (RuntimeException refused) { // a Range header it cannot take: the caller's error
                        ctx.fail(refused);
                    }
                });
    }

    private Future<Playable> stored(RecordingRow row) {
        RecordingStorage storage = storage();
        return reads().executeBlocking(() -> storage.size(row.storageKey()), false).map(size -> new Playable(row,
                size.orElseThrow(() -> new NotFoundException("recording " + row.name() + " is in the index but not "
                        + "in storage")), (first, last) -> storage.read(row.storageKey(), first, last)));
    }

    /** A session's recording while it runs: up to what reached its node's disk when the playback began. */
    private Future<Playable> running(RecordingRow row) {
        LivePlayback live = live();
        return live.view(row.nodeId(), row.sessionId()).map(view -> new Playable(row, view.total(),
                (first, last) -> live.open(row.nodeId(), row.sessionId(), row.storageKey(), view, first, last)));
    }

    private void serve(RoutingContext ctx, Playable playable) {
        RecordingRow row = playable.row();
        long size = playable.size();
        HttpServerResponse response = ctx.response().putHeader("Accept-Ranges", "bytes")
                .putHeader("X-Recording-State", row.state())
                .putHeader("Content-Type", "application/octet-stream")
                .putHeader("Content-Disposition", "inline; filename=\"" + row.name() + "\"")
                .putHeader("Cache-Control", "private, no-store");
        long first = 0;
        long last = size - 1;
        String range = ctx.request().getHeader("Range");
        if (range != null) {
            Matcher matcher = RANGE.matcher(range.trim());
            if (!matcher.matches() || matcher.group(1).isEmpty() && matcher.group(2).isEmpty()) {
                throw new InvalidRequestException("the Range header must be one range of bytes, such as "
                        + "bytes=0-1023, got '" + (range.length() > 40 ? range.substring(0, 40) : range) + "'");
            }
            try {
                if (matcher.group(1).isEmpty()) {
                    first = Math.max(0, size - Long.parseLong(matcher.group(2)));
                } else {
                    first = Long.parseLong(matcher.group(1));
                    if (!matcher.group(2).isEmpty()) {
                        last = Math.min(last, Long.parseLong(matcher.group(2)));
                    }
                }
            } catch (NumberFormatException e) {
                throw new InvalidRequestException("the Range header's numbers are too large");
            }
            if (first > last || first >= size) {
                response.putHeader("Content-Range", "bytes */" + size);
                AuditedCalls.nothingDone(ctx);
                Responses.error(ctx, 416, "recording " + row.name() + " has " + size + " bytes; range '" + range
                        + "' is not in it");
                return;
            }
            response.setStatusCode(206).putHeader("Content-Range", "bytes " + first + "-" + last + "/" + size);
        }
        if (first > 0) {
            AuditedCalls.nothingDone(ctx); // the same playback going on: its first request was the event
        }
        AuditedCalls.detail(ctx, row.name() + " of " + (row.createdByEmail() != null ? row.createdByEmail()
                : row.createdBy()));
        response.putHeader("Content-Length", String.valueOf(last - first + 1));
        if (ctx.request().method() == io.vertx.core.http.HttpMethod.HEAD || size == 0) {
            response.end();
            return;
        }
        long from = first;
        long to = last;
        reads().executeBlocking(() -> playable.opener().open(from, to), false)
                .onFailure(ctx::fail).onSuccess(in -> pump(response, in));
    }

    /** One chunk read on a worker, written, and the next once the response has room; the stream closed at the end. */
    private void pump(HttpServerResponse response, InputStream in) {
        if (response.closed()) {
            close(in);
            return;
        }
        reads().executeBlocking(() -> in.readNBytes(CHUNK), false).onComplete(read -> {
            if (read.failed() || response.closed()) {
                close(in);
                response.reset(); // half a recording must not pass for a whole one
                return;
            }
            byte[] chunk = read.result();
            if (chunk.length == 0) {
                close(in);
                response.end();
                return;
            }
            response.write(Buffer.buffer(chunk));
            if (response.writeQueueFull()) {
                response.drainHandler(ignored -> {
                    response.drainHandler(null);
                    pump(response, in);
                });
            } else {
                pump(response, in);
            }
        });
    }

    private void close(InputStream in) {
        reads().executeBlocking(() -> {
            in.close();
            return null;
        }, false);
    }

    private void delete(RoutingContext ctx) {
        String id = sessionId(ctx);
        Identity who = Authenticator.identity(ctx);
        RecordingStorage storage = storage();
        await(store.run(Operation.recording(id))).map(found -> found.filter(row -> !RecordingRow.DELETED.equals(
                row.state())).orElseThrow(() -> new NotFoundException("no recording " + id))).compose(row -> {
                    if (RecordingRow.RECORDING.equals(row.state())) {
                        throw new ConflictException("recording " + id + " is still being made; end its session first");
                    }
                    return reads().executeBlocking(() -> {
                        storage.delete(row.storageKey());
                        return row;
                    }, false);
                }).onFailure(ctx::fail).onSuccess(row -> {
                    store.record(new Fact.RecordingDeleted(row.sessionId(), clock.instant(), who.name(),
                            "deleted by " + who.name()));
                    Responses.noContent(ctx);
                });
    }

    /** The recordings' own workers (the node closes them with its recordings); a node without any reads nothing. */
    private WorkerExecutor reads() {
        if (recordings == null) {
            throw new NotFoundException("this gateway keeps no recordings (GW_RECORDING=off)");
        }
        return recordings.worker();
    }

    private LivePlayback live() {
        if (live == null) {
            throw new NotFoundException("this gateway keeps no recordings (GW_RECORDING=off)");
        }
        return live;
    }

    private RecordingStorage storage() {
        if (recordings == null) {
            throw new NotFoundException("this gateway keeps no recordings (GW_RECORDING=off)");
        }
        return recordings.storage();
    }

    /** Admins and auditors see every recording; an owner theirs, where the site allows it; nobody else any. */
    private boolean visible(Identity who, RecordingRow row) {
        return who.role().atLeast(Role.AUDITOR) || ownerAccess() && who.id().equals(row.ownerId());
    }

    private RecordingFilter scoped(RoutingContext ctx, RecordingFilter filter) {
        Identity who = Authenticator.identity(ctx);
        if (who.share() != null) {
            throw new ForbiddenException("a share link watches no recording");
        }
        if (who.role().atLeast(Role.AUDITOR)) {
            return filter;
        }
        if (!ownerAccess()) {
            throw new ForbiddenException("only admins and auditors watch recordings here (GW_RECORDING_OWNER_ACCESS "
                    + "lets people watch their own)");
        }
        return filter.onlyOwner(who.id());
    }

    private boolean ownerAccess() {
        return recordings != null && recordings.settings().ownerAccess();
    }

    private static String sessionId(RoutingContext ctx) {
        Matcher name = NAME.matcher(ctx.pathParam("name"));
        if (!name.matches()) {
            throw new InvalidRequestException("a recording's name is its session's id, with or without .guac");
        }
        return name.group(1);
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
