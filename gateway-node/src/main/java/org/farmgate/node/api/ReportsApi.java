package org.farmgate.node.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.durable.AuditFilter;
import org.farmgate.durable.AuditRow;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Operation;
import org.farmgate.durable.Page;
import org.farmgate.durable.SessionFilter;
import org.farmgate.durable.SessionRow;
import org.farmgate.error.ForbiddenException;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.Responses;

/**
 * Session history, reports and the audit log, rustguac-compatible where rustguac has the route:
 * {@code /api/reports/sessions} (and {@code /csv}), {@code /api/reports/top-users}, {@code /api/reports/summary},
 * {@code /api/admin/token-audit}; then {@code /api/audit} and {@code /api/audit/verify}. Admins and auditors read
 * everything; anyone else reads the history of their own sessions only, and nothing of the audit log.
 */
public final class ReportsApi {

    /** The most rows one CSV download holds; a wider one is narrowed by its filters. */
    static final int CSV_MAX_ROWS = 1_000_000;
    private static final int CSV_PAGE = 1000;

    private final Vertx vertx;
    private final DurableStore store;

    public ReportsApi(Vertx vertx, DurableStore store) {
        this.vertx = vertx;
        this.store = store;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/reports/sessions").handler(auth.require(Role.VIEWER)).handler(this::sessions);
        router.get("/api/reports/sessions/csv").handler(auth.require(Role.VIEWER)).handler(this::csv);
        router.get("/api/reports/top-users").handler(auth.require(Role.AUDITOR)).handler(this::topUsers);
        router.get("/api/reports/summary").handler(auth.require(Role.AUDITOR)).handler(this::summary);
        router.get("/api/admin/token-audit").handler(auth.require(Role.AUDITOR)).handler(this::tokenAudit);
        router.get("/api/audit").handler(auth.require(Role.AUDITOR)).handler(this::audit);
        router.get("/api/audit/verify").handler(auth.require(Role.AUDITOR)).handler(ctx -> answer(ctx,
                store.run(Operation.verifyAudit())));
    }

    private void sessions(RoutingContext ctx) {
        SessionFilter filter = scoped(ctx, new ReportQuery(ctx.queryParams(), ReportQuery.SESSION_PARAMETERS)
                .sessions());
        await(store.run(Operation.sessions(filter))).onFailure(ctx::fail).onSuccess(page -> Responses.json(ctx, 200,
                body("sessions", page)));
    }

    /**
     * Every matching row, newest first, read a page at a time and written as the client takes it: the next page is
     * read only once the response's queue has drained, so a slow reader holds one page, not the whole history.
     */
    private void csv(RoutingContext ctx) {
        SessionFilter filter = scoped(ctx, new ReportQuery(ctx.queryParams(), ReportQuery.SESSION_PARAMETERS)
                .sessions()).after(null, CSV_PAGE);
        // The first page is read before anything is sent, so that a database that is away is still a 503.
        await(store.run(Operation.sessions(filter))).onFailure(ctx::fail).onSuccess(first -> {
            HttpServerResponse response = ctx.response().setChunked(true)
                    .putHeader("Content-Type", "text/csv; charset=utf-8")
                    .putHeader("Content-Disposition", "attachment; filename=\"session-history.csv\"")
                    .putHeader("Cache-Control", "no-store");
            response.write(SessionsCsv.HEADER);
            writePages(response, filter, first.rows(), 0);
        });
    }

    private void writePages(HttpServerResponse response, SessionFilter filter, List<SessionRow> rows, int sent) {
        if (response.closed()) {
            return;
        }
        StringBuilder out = new StringBuilder(rows.size() * 200);
        rows.forEach(row -> SessionsCsv.append(out, row));
        response.write(out.toString());
        int total = sent + rows.size();
        if (rows.size() < CSV_PAGE || total >= CSV_MAX_ROWS) {
            response.end();
            return;
        }
        SessionRow last = rows.get(rows.size() - 1);
        SessionFilter next = filter.after(new SessionFilter.Cursor(last.startedAt(), last.sessionId()), CSV_PAGE);
        Runnable readNext = () -> await(store.run(Operation.sessions(next)))
                .onFailure(error -> response.reset()) // half a file must not pass for a whole one
                .onSuccess(page -> writePages(response, next, page.rows(), total));
        if (response.writeQueueFull()) {
            response.drainHandler(ignored -> {
                response.drainHandler(null);
                readNext.run();
            });
        } else {
            readNext.run();
        }
    }

    private void topUsers(RoutingContext ctx) {
        ReportQuery query = new ReportQuery(ctx.queryParams(), ReportQuery.SESSION_PARAMETERS);
        answer(ctx, store.run(Operation.topUsers(query.sessions(), query.limit(20, 100))));
    }

    private void summary(RoutingContext ctx) {
        answer(ctx, store.run(Operation.summary(new ReportQuery(ctx.queryParams(), ReportQuery.SESSION_PARAMETERS)
                .sessions())));
    }

    private void audit(RoutingContext ctx) {
        AuditFilter filter = new ReportQuery(ctx.queryParams(), ReportQuery.AUDIT_PARAMETERS).audit();
        await(store.run(Operation.audit(filter))).onFailure(ctx::fail).onSuccess(page -> Responses.json(ctx, 200,
                body("events", page)));
    }

    /** A page as rustguac's reports answer it: the rows under their name, then how many match and where this is. */
    private static Map<String, Object> body(String name, Page<?> page) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put(name, page.rows());
        body.put("total", page.total());
        body.put("limit", page.limit());
        body.put("offset", page.offset());
        return body;
    }

    /** rustguac's token audit: the token events, in its row shape. */
    private void tokenAudit(RoutingContext ctx) {
        ReportQuery query = new ReportQuery(ctx.queryParams(), Set.of("limit", "email"));
        AuditFilter filter = new AuditFilter(query.text("email"), "token.", null, null, null, null,
                query.limit(200, AuditFilter.MAX_LIMIT), 0);
        await(store.run(Operation.audit(filter))).onFailure(ctx::fail).onSuccess(page -> Responses.json(ctx, 200,
                page.rows().stream().map(ReportsApi::tokenRow).toList()));
    }

    private static Map<String, Object> tokenRow(AuditRow row) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", row.seq());
        out.put("token_name", row.event().target());
        out.put("user_email", row.event().actorName());
        out.put("action", row.event().action().substring("token.".length()));
        out.put("outcome", row.event().outcome());
        out.put("ip_addr", row.event().clientAddress());
        out.put("details", row.event().detail());
        out.put("created_at", row.event().at());
        return out;
    }

    /** Admins and auditors read every row; anyone else the rows of their own sessions. */
    private static SessionFilter scoped(RoutingContext ctx, SessionFilter filter) {
        Identity who = Authenticator.identity(ctx);
        if (who.share() != null) {
            throw new ForbiddenException("a share link reads no history");
        }
        return who.role().atLeast(Role.AUDITOR) ? filter : filter.ownedBy(who.id());
    }

    private <T> void answer(RoutingContext ctx, CompletionStage<T> result) {
        await(result).onFailure(ctx::fail).onSuccess(value -> Responses.json(ctx, 200, value));
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
