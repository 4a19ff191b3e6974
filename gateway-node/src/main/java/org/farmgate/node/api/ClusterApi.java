package org.farmgate.node.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.NodeState;
import org.farmgate.model.Protocol;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.cluster.NodeAgent;
import org.farmgate.node.cluster.Strangers;
import org.farmgate.node.http.Responses;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.SharedStateUnavailableException;

/**
 * {@code GET /api/cluster} and {@code POST /api/cluster/nodes/{id}/drain|undrain} (admin): the cluster's capacity
 * at a glance, with the cost model beside what guacd really uses, and "how many more fit" per node and in total.
 * "Fits" counts sessions at the default display (1024x768), each protocol taken alone. {@code GET
 * /api/cluster/quota} (admin) lists the sessions that hold each user's places.
 */
public final class ClusterApi {

    private final Vertx vertx;
    private final NodeRegistry registry;
    private final NodeAgent agent;
    private final SessionQuota quota;
    private final Strangers strangers;

    public ClusterApi(Vertx vertx, NodeRegistry registry, NodeAgent agent, SessionQuota quota, Strangers strangers) {
        this.vertx = vertx;
        this.registry = registry;
        this.agent = agent;
        this.quota = quota;
        this.strangers = strangers;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/cluster").handler(auth.require(Role.ADMIN)).handler(this::cluster);
        router.get("/api/cluster/quota").handler(auth.require(Role.ADMIN)).handler(this::quota);
        router.post("/api/cluster/nodes/:id/drain").handler(auth.require(Role.ADMIN)).handler(ctx -> drain(ctx, true));
        router.post("/api/cluster/nodes/:id/undrain").handler(auth.require(Role.ADMIN))
                .handler(ctx -> drain(ctx, false));
    }

    /**
     * The strangers are in the answer either way: while one owns partitions the registry may be unreadable (503),
     * and that is when an admin most needs to see who is in.
     */
    private void cluster(RoutingContext ctx) {
        List<Map<String, Object>> shown = strangers.current().stream().map(ClusterApi::stranger).toList();
        List<Map<String, Object>> expelled = strangers.expelled().stream().map(ClusterApi::stranger).toList();
        Future.fromCompletionStage(registry.summaries(), vertx.getOrCreateContext())
                .onFailure(e -> ctx.fail(e instanceof SharedStateUnavailableException unavailable
                        ? new GatewayException(unavailable.status(), unavailable.getMessage(),
                                Map.of("strangers", shown, "expelled_strangers", expelled), unavailable.headers())
                        : e))
                .onSuccess(nodes -> {
                    Map<String, Object> body = view(nodes, agent.costModel());
                    body.put("strangers", shown);
                    body.put("expelled_strangers", expelled);
                    Responses.json(ctx, 200, body);
                });
    }

    private static Map<String, Object> stranger(Strangers.Stranger stranger) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("member_id", stranger.memberId());
        row.put("address", stranger.address());
        row.put("since", stranger.since().toString());
        if (stranger.expelledAt() != null) {
            row.put("expelled_at", stranger.expelledAt().toString());
        }
        return row;
    }

    private void quota(RoutingContext ctx) {
        Future.fromCompletionStage(quota.places(), vertx.getOrCreateContext()).onFailure(ctx::fail)
                .onSuccess(places -> {
                    Map<String, Object> users = new java.util.TreeMap<>();
                    places.forEach((user, ids) -> users.put(user, new java.util.TreeSet<>(ids)));
                    Responses.json(ctx, 200, Map.of("users", users));
                });
    }

    private void drain(RoutingContext ctx, boolean drain) {
        String id = ctx.pathParam("id");
        agent.setDrain(id, drain).onFailure(ctx::fail).onSuccess(found -> {
            if (!found) {
                ctx.fail(new NotFoundException("no node '" + id + "' in the cluster"));
                return;
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("node_id", id);
            body.put("drain_requested", drain);
            Responses.json(ctx, 200, body);
        });
    }

    static Map<String, Object> view(List<NodeLoad> nodes, CostModel localModel) {
        List<NodeLoad> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(NodeLoad::nodeId));
        List<Map<String, Object>> rows = new ArrayList<>();
        Map<Protocol, Integer> fitsTotal = new EnumMap<>(Protocol.class);
        long budget = 0;
        long reserved = 0;
        long free = 0;
        int sessions = 0;
        int up = 0;
        for (NodeLoad node : sorted) {
            rows.add(row(node));
            for (Protocol protocol : Protocol.values()) {
                fitsTotal.merge(protocol, node.fitsMore(protocol, DisplaySize.DEFAULT), Integer::sum);
            }
            budget += node.limits().budgetMb();
            reserved += node.reservations().reservedMb();
            sessions += node.reservations().sessionCount();
            if (node.state() == NodeState.UP) {
                up++;
                free += Math.max(0, node.freeMb());
            }
        }
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("nodes", sorted.size());
        totals.put("nodes_up", up);
        totals.put("sessions", sessions);
        totals.put("budget_mb", budget);
        totals.put("reserved_mb", reserved);
        totals.put("free_mb", free);
        totals.put("fits", byName(fitsTotal));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("nodes", rows);
        body.put("totals", totals);
        body.put("cost_model", costs(localModel));
        return body;
    }

    private static Map<String, Object> row(NodeLoad node) {
        HostMeasurements m = node.measurements();
        Map<String, Object> memory = new LinkedHashMap<>();
        memory.put("total_mb", m.hostTotalMb());
        memory.put("available_mb", m.hostAvailableMb());
        memory.put("margin_mb", node.limits().marginMb());
        memory.put("budget_mb", node.limits().budgetMb());
        memory.put("reserved_mb", node.reservations().reservedMb());
        memory.put("pending_mb", node.reservations().pendingMb());
        memory.put("free_mb", node.freeMb());
        memory.put("guacd_pss_mb", m.guacdPssMb());
        memory.put("guacd_idle_pss_mb", m.guacdBaselineMb());

        // As guacd's measured PSS above its idle cost: every session's own cost and each protocol's once.
        long activeModel = node.reservations().reservedMb() - node.reservations().pendingMb()
                + node.protocolsInUseMb();
        Map<String, Object> modelVsMeasured = new LinkedHashMap<>();
        modelVsMeasured.put("model_mb", activeModel);
        modelVsMeasured.put("measured_mb", m.guacdSessionsPssMb());

        Map<Protocol, Integer> fits = new EnumMap<>(Protocol.class);
        Map<Protocol, Integer> perProtocol = new EnumMap<>(Protocol.class);
        for (Protocol protocol : Protocol.values()) {
            fits.put(protocol, node.fitsMore(protocol, DisplaySize.DEFAULT));
            perProtocol.put(protocol, node.reservations().sessions(protocol));
        }
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("node_id", node.nodeId());
        row.put("address", node.address().httpHost() + ":" + node.address().httpPort());
        row.put("state", node.state());
        row.put("memory", memory);
        row.put("model_vs_measured", modelVsMeasured);
        row.put("sessions", byName(perProtocol));
        row.put("sessions_total", node.reservations().sessionCount());
        row.put("session_cap", node.sessionCap());
        row.put("guacd_healthy", m.guacdHealthy());
        row.put("cpu_count", m.cpuCount());
        row.put("load_average", m.loadAverage());
        row.put("fits", byName(fits));
        row.put("cost_model", costs(node.costModel()));
        row.put("updated_at", node.updatedAt());
        return row;
    }

    private static Map<String, Object> costs(CostModel model) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Protocol protocol : Protocol.values()) {
            CostModel.Cost cost = model.cost(protocol);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("base_mb", Math.round(cost.baseMb() * 100) / 100.0);
            entry.put("per_megapixel_mb", Math.round(cost.perMegapixelMb() * 100) / 100.0);
            entry.put("once_per_host_mb", Math.round(cost.protocolMb() * 100) / 100.0);
            entry.put("at_1024x768_mb", model.estimateMb(protocol, DisplaySize.DEFAULT));
            out.put(protocol.wireName(), entry);
        }
        return out;
    }

    private static Map<String, Integer> byName(Map<Protocol, Integer> values) {
        Map<String, Integer> out = new LinkedHashMap<>();
        values.forEach((protocol, value) -> out.put(protocol.wireName(), value));
        return out;
    }
}
