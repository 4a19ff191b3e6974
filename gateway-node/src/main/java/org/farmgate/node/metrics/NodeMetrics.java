package org.farmgate.node.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.VertxOptions;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.addressbook.AddressBookCache;

/**
 * The node's Prometheus metrics: ours under {@code farmgate_}, Vert.x's server side under {@code vertx_}, and the
 * JVM's. Labels have few values (protocol, status, outcome, direction); no session id, user or address ever
 * becomes a label.
 */
public final class NodeMetrics {

    /** Where a relayed byte goes. */
    public enum Direction {
        TO_CLIENT,
        TO_GUACD
    }

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Counter> createOutcomes = new ConcurrentHashMap<>();
    private final Map<SessionStatus, Counter> endOutcomes = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejectedRecords = new ConcurrentHashMap<>();
    private final Map<String, Timer> handshakeOutcomes = new ConcurrentHashMap<>();
    private final Map<Repair, Counter> repairs = new EnumMap<>(Repair.class);
    private static final List<String> REJECTION_REASONS = List.of("forged", "replayed");
    /** What a create request may end in (SessionCreation.outcome). */
    private static final List<String> CREATE_OUTCOMES = List.of("created", "no_capacity", "over_user_limit",
            "invalid", "failed");
    private final Map<Direction, Counter> bytes = new EnumMap<>(Direction.class);
    private final Map<Direction, Counter> instructions = new EnumMap<>(Direction.class);
    private final Timer placement;
    private final Timer attach;
    private final Counter relayHops;
    private final Counter watcherInputDropped;

    public NodeMetrics() {
        // Two of Micrometer's standard names break Prometheus's naming rules (promtool): a unit abbreviation and
        // a gauge ending in _count.
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().equals("system.cpu.count") ? id.withName("system.cpus") : id;
            }
        });
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // Counters an alert watches exist at zero from the start: a series born with its first increase shows none.
        CREATE_OUTCOMES.forEach(this::sessionCreates);
        for (SessionStatus status : SessionStatus.values()) {
            if (!status.isLive()) {
                sessionEnds(status);
            }
        }
        for (Repair kind : Repair.values()) {
            repairs.put(kind, Counter.builder("farmgate_repairs").tag("kind", kind.label())
                    .description("What the repairs put right: quota places, directory records, reservations")
                    .register(registry));
        }
        for (Direction direction : Direction.values()) {
            String name = direction.name().toLowerCase();
            bytes.put(direction, Counter.builder("farmgate_relay_bytes").baseUnit("bytes").tag("direction", name)
                    .description("Bytes relayed between WebSockets and guacd").register(registry));
            instructions.put(direction, Counter.builder("farmgate_relay_instructions").tag("direction", name)
                    .description("Guacamole instructions relayed between WebSockets and guacd").register(registry));
        }
        placement = Timer.builder("farmgate_placement_duration").description("Time to place and reserve a session")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(5)).register(registry);
        attach = Timer.builder("farmgate_attach_duration")
                .description("Time from a WebSocket's arrival to the first relayed byte (guacd handshake included)")
                .publishPercentileHistogram().maximumExpectedValue(Duration.ofSeconds(30)).register(registry);
        relayHops = Counter.builder("farmgate_relay_hops").description(
                "WebSockets this node relayed to the node that holds their session").register(registry);
        watcherInputDropped = Counter.builder("farmgate_watcher_input_dropped").description(
                "Instructions from read-only watchers that the node kept from guacd").register(registry);
    }

    /** Vert.x's own metrics, reported into the same registry. */
    public VertxMetricsFactory vertxMetrics(VertxOptions options) {
        options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(false));
        return new MicrometerMetricsFactory(registry);
    }

    /** Live figures read at scrape time: this node's sessions, guacd's health and memory against the model. */
    public void bind(Supplier<Iterable<SessionInfo>> localSessions, Supplier<NodeLoad> self) {
        for (Protocol protocol : Protocol.values()) {
            for (SessionStatus status : new SessionStatus[] {SessionStatus.PENDING, SessionStatus.ACTIVE}) {
                Gauge.builder("farmgate_sessions", () -> count(localSessions, protocol, status))
                        .tag("protocol", protocol.wireName()).tag("status", status.wireName())
                        .description("Live sessions this node holds").register(registry);
            }
            Gauge.builder("farmgate_sessions_fit", () -> selfValue(self,
                            node -> node.fitsMore(protocol, DisplaySize.DEFAULT)))
                    .tag("protocol", protocol.wireName())
                    .description("More sessions of the protocol at the default display this node can take now")
                    .register(registry);
            Gauge.builder("farmgate_memory_model_bytes", () -> selfValue(self,
                            node -> node.reservations().reservedByProtocolMb().getOrDefault(protocol, 0L) * MB))
                    .tag("protocol", protocol.wireName())
                    .description("Memory the cost model charged for this node's sessions").register(registry);
        }
        Gauge.builder("farmgate_guacd_up", () -> selfValue(self, node -> node.measurements().guacdHealthy() ? 1 : 0))
                .description("Whether this node's guacd answered its last probe").register(registry);
        Gauge.builder("farmgate_guacd_memory_pss_bytes", () -> selfValue(self,
                node -> node.measurements().guacdPssMb() * MB))
                .description("guacd's proportional set size, all its processes").register(registry);
        Gauge.builder("farmgate_guacd_sessions_memory_pss_bytes", () -> selfValue(self,
                node -> node.measurements().guacdSessionsPssMb() * MB))
                .description("guacd's PSS above its idle baseline: what sessions really cost").register(registry);
        Gauge.builder("farmgate_memory_budget_bytes", () -> selfValue(self, node -> node.limits().budgetMb() * MB))
                .description("Memory this node may give to sessions").register(registry);
        Gauge.builder("farmgate_memory_free_bytes", () -> selfValue(self, node -> node.freeMb() * MB))
                .description("Memory still free for sessions by the placement's measure").register(registry);
        Gauge.builder("farmgate_host_memory_available_bytes", () -> selfValue(self,
                node -> node.measurements().hostAvailableMb() * MB))
                .description("The host's available memory (cgroup-aware)").register(registry);
    }

    /**
     * Members of the cluster that have not proven themselves nodes (see {@code Strangers}), and those expelled.
     * {@code source} is held by the node for its life: Micrometer keeps only a weak reference to it.
     */
    public <T> void bindStrangers(T source, ToDoubleFunction<T> current, ToDoubleFunction<T> expelled) {
        Gauge.builder("farmgate_cluster_strangers", source, current)
                .description("Members of the cluster past their grace without a registry entry sealed with the "
                        + "cluster key: processes without the key").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("farmgate_cluster_strangers_expelled", source, expelled)
                .description("Strangers this node expelled from the cluster as its coordinator").register(registry);
    }

    /**
     * The durable store's outbox: what waits for the database, what was lost past its bounds. {@code store} is held
     * by the node for its life.
     */
    public void bindRecords(org.farmgate.durable.DurableStore store) {
        Gauge.builder("farmgate_records_database_up", store, s -> s.state().databaseUp() ? 1 : 0)
                .description("Whether the last write of history and audit reached the database").register(registry);
        Gauge.builder("farmgate_records_queued", store, s -> s.state().queued())
                .description("History and audit facts in memory, waiting for the writer").register(registry);
        Gauge.builder("farmgate_records_spooled_bytes", store, s -> s.state().spooledBytes())
                .description("Bytes of facts waiting in the spool file for the database").register(registry);
        Gauge.builder("farmgate_records_spool_limit_bytes", store, s -> s.spoolLimitBytes())
                .description("The spool's bound (GW_OUTBOX_SPOOL_MB): past it, facts are dropped").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("farmgate_records_dropped", store,
                s -> s.state().dropped())
                .description("History and audit facts lost: the outbox's memory and spool were full, or there is "
                        + "no database").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("farmgate_records_rejected", store,
                s -> s.state().rejected())
                .description("Facts the database refused for what they held (a bug: the log says which)")
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("farmgate_records_written", store,
                s -> s.state().written())
                .description("History and audit facts written to the database").register(registry);
    }

    private static final double MB = 1024.0 * 1024.0;

    private static double count(Supplier<Iterable<SessionInfo>> sessions, Protocol protocol, SessionStatus status) {
        int n = 0;
        for (SessionInfo info : sessions.get()) {
            if (info.sessionType() == protocol && info.status() == status) {
                n++;
            }
        }
        return n;
    }

    private static double selfValue(Supplier<NodeLoad> self, ToDoubleFunction<NodeLoad> value) {
        NodeLoad node = self.get();
        return node == null ? Double.NaN : value.applyAsDouble(node);
    }

    /**
     * Counts every (map, reason) of {@code maps} at zero from now on: an alert on an increase sees the first
     * rejection, which a series that appears with it would hide.
     */
    public void expectRejections(Collection<String> maps) {
        for (String map : maps) {
            for (String reason : REJECTION_REASONS) {
                rejectedRecords(map, reason);
            }
        }
    }

    /** A record in a shared map was not believed: {@code forged} (no valid seal) or {@code replayed} (an old copy). */
    public void rejectedRecord(String map, String reason) {
        rejectedRecords(map, reason).increment();
    }

    private Counter rejectedRecords(String map, String reason) {
        return rejectedRecords.computeIfAbsent(map + '\0' + reason, m -> Counter.builder(
                        "farmgate_shared_records_rejected").tag("map", map).tag("reason", reason)
                .description("Records in shared maps not believed: without a valid seal of the cluster key "
                        + "(forged), or older than the latest write of their entry (replayed)")
                .register(registry));
    }

    /** A session ended, leaving its record in {@code status}. */
    public void ended(SessionStatus status) {
        sessionEnds(status).increment();
    }

    private Counter sessionEnds(SessionStatus status) {
        return endOutcomes.computeIfAbsent(status, s -> Counter.builder("farmgate_session_ends")
                .tag("status", s.wireName()).description("Sessions that ended, by the status they ended in")
                .register(registry));
    }

    /** One create request's outcome: created, no_capacity, over_user_limit, invalid, failed. */
    public void created(String outcome) {
        sessionCreates(outcome).increment();
    }

    /** A repair put the cluster's state right: {@code count} places, records or reservations of {@code kind}. */
    public void repaired(Repair kind, int count) {
        repairs.get(kind).increment(count);
    }

    /** What the repairs put right, each counted by {@code farmgate_repairs_total{kind}}. */
    public enum Repair {
        /** Quota places no session held, given back by the coordinator. */
        QUOTA_PLACES,
        /** Directory records of sessions this node does not hold as they say: marked lost, or their end rewritten. */
        ORPHAN_RECORDS,
        /** Reservations in this node's registry entry for sessions it never came to hold, given up. */
        UNHELD_RESERVATIONS;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private Counter sessionCreates(String outcome) {
        return createOutcomes.computeIfAbsent(outcome, o -> Counter.builder("farmgate_session_creates")
                .tag("outcome", o).description("Session creation requests by outcome").register(registry));
    }

    public Timer placement() {
        return placement;
    }

    public Timer attach() {
        return attach;
    }

    /** One guacd handshake: ok, or the Guacamole status it failed with. */
    public void handshake(String outcome, long nanos) {
        handshakeOutcomes.computeIfAbsent(outcome, o -> Timer.builder("farmgate_guacd_handshake_duration")
                .tag("outcome", o).description("guacd handshakes: select to ready").publishPercentileHistogram()
                .maximumExpectedValue(Duration.ofSeconds(30)).register(registry))
                .record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    public void relayed(Direction direction, long byteCount, long instructionCount) {
        bytes.get(direction).increment(byteCount);
        instructions.get(direction).increment(instructionCount);
    }

    public void relayHop() {
        relayHops.increment();
    }

    public void watcherInputDropped(long instructions) {
        watcherInputDropped.increment(instructions);
    }

    /** The address book's cache and source, counted. */
    public AddressBookCache.Listener addressBookListener() {
        Counter hits = Counter.builder("farmgate_addressbook_cache_hits").description(
                "Address-book reads served from the cluster's copy").register(registry);
        Counter misses = Counter.builder("farmgate_addressbook_cache_misses").description(
                "Address-book reads that found no copy and loaded it").register(registry);
        Timer loadsOk = Timer.builder("farmgate_addressbook_load_duration").tag("outcome", "ok")
                .description("Loads of the whole address book from its source").register(registry);
        Timer loadsFailed = Timer.builder("farmgate_addressbook_load_duration").tag("outcome", "failed")
                .description("Loads of the whole address book from its source").register(registry);
        return new AddressBookCache.Listener() {
            @Override
            public void hit() {
                hits.increment();
            }

            @Override
            public void miss() {
                misses.increment();
            }

            @Override
            public void loaded(long nanos, boolean ok) {
                (ok ? loadsOk : loadsFailed).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        };
    }

    /** Every call to Vault, timed. */
    public java.util.function.LongConsumer vaultCalls() {
        Timer calls = Timer.builder("farmgate_vault_request_duration").description("Calls to Vault")
                .publishPercentileHistogram().maximumExpectedValue(Duration.ofSeconds(30)).register(registry);
        return nanos -> calls.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }
}
