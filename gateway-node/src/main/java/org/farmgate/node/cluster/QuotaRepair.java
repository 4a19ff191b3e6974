package org.farmgate.node.cluster;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.Membership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's repair of the per-user quota, as the registry's heartbeats repair reservations. A place whose
 * session no node holds or has reserved is an orphan (its placing node died between taking the place and opening
 * the session, or a release never arrived); an orphan seen in two rounds in a row, a round being longer than any
 * create takes from taking its place to reserving, is given back. Only the coordinator repairs, so two repairs never
 * race; what it gives back is by session id, so a session that appears in between keeps its place.
 */
public final class QuotaRepair {

    private static final Logger LOG = LoggerFactory.getLogger(QuotaRepair.class);
    /** A round: longer than an open request may take (the messenger's timeout, with room). */
    public static final Duration ROUND = Duration.ofSeconds(30);

    private final Vertx vertx;
    private final Membership membership;
    private final NodeRegistry registry;
    private final SessionQuota quota;
    private final Duration round;
    private final IntConsumer repaired;
    private volatile Map<String, Set<String>> suspects = Map.of();
    private Context context;
    private long timer = -1;

    /** @param repaired told how many places each round gave back */
    public QuotaRepair(Vertx vertx, Membership membership, NodeRegistry registry, SessionQuota quota,
            Duration round, IntConsumer repaired) {
        this.repaired = repaired;
        this.vertx = vertx;
        this.membership = membership;
        this.registry = registry;
        this.quota = quota;
        this.round = round;
    }

    public void start() {
        context = vertx.getOrCreateContext();
        timer = vertx.setPeriodic(round.toMillis(), id -> {
            if (membership.isCoordinator()) {
                repairOnce().onFailure(error -> LOG.warn("quota repair failed: {}", error.getMessage()));
            } else {
                suspects = Map.of();
            }
        });
    }

    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    /** One round: gives back the orphans the last round saw too; the number of places given back. */
    public Future<Integer> repairOnce() {
        Future<Set<String>> reserved = await(registry.reservedSessions());
        Future<Map<String, Set<String>>> places = await(quota.places());
        return Future.all(reserved, places).compose(both -> {
            Map<String, Set<String>> orphans = new HashMap<>();
            places.result().forEach((user, ids) -> ids.stream().filter(id -> !reserved.result().contains(id))
                    .forEach(id -> orphans.computeIfAbsent(user, u -> new HashSet<>()).add(id)));
            Map<String, Set<String>> confirmed = new HashMap<>();
            orphans.forEach((user, ids) -> {
                Set<String> again = new HashSet<>(ids);
                again.retainAll(suspects.getOrDefault(user, Set.of()));
                if (!again.isEmpty()) {
                    confirmed.put(user, again);
                }
            });
            suspects = orphans;
            List<Future<Integer>> releases = confirmed.entrySet().stream()
                    .map(entry -> await(quota.releaseAll(entry.getKey(), entry.getValue()))).toList();
            return Future.all(releases).map(done -> {
                int released = releases.stream().mapToInt(Future::result).sum();
                if (released > 0) {
                    LOG.warn("gave back {} quota places of sessions no node holds: {}", released, confirmed);
                    repaired.accept(released);
                }
                return released;
            });
        });
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, context != null ? context : vertx.getOrCreateContext());
    }
}
