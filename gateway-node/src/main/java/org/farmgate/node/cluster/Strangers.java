package org.farmgate.node.cluster;

import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.model.NodeLoad;
import org.farmgate.router.store.Membership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Members of the cluster that are not nodes: a member proves itself a node by a registry entry sealed with the
 * cluster key that names its member id, which only a holder of the key can write. One that has not within its grace
 * is a stranger (a process on the cluster network that knows the cluster's name and ports): it is shown to admins,
 * counted and logged, and the coordinator expels it, since while it is in it owns partitions, answers for them as it
 * likes, and fails every call on them.
 *
 * <p>A member is proven once and stays so while it is a member; the proof is read from the registry views the node
 * takes anyway, so a stranger that breaks those views proves nobody new meanwhile (a node that joins then would wait
 * for the stranger's expulsion, or be expelled itself after the grace, which is why the grace is long).
 */
public final class Strangers {

    private static final Logger LOG = LoggerFactory.getLogger(Strangers.class);

    /** A member that is not a node: its id, its address, since when this node has seen it, when it was expelled. */
    public record Stranger(String memberId, String address, Instant since, Instant expelledAt) {
    }

    /** How many expelled strangers are remembered for admins to see. */
    static final int REMEMBERED = 16;

    private final Membership membership;
    private final Duration grace;
    private final boolean expel;
    private final Clock clock;
    /** Read without the lock by {@link #anyUnproven}, on an event loop, while a check may hold it for an expulsion. */
    private final Set<String> proven = ConcurrentHashMap.newKeySet();
    private final Map<String, Instant> firstSeen = new HashMap<>();
    private final Set<String> told = new HashSet<>();
    private final Set<String> expelled = new HashSet<>();
    private volatile List<Stranger> current = List.of();
    private final Deque<Stranger> expelledRecently = new ArrayDeque<>();
    private final AtomicLong expulsions = new AtomicLong();
    private long timer = -1;

    public Strangers(Membership membership, Duration grace, boolean expel, Clock clock) {
        this.membership = membership;
        this.grace = grace;
        this.expel = expel;
        this.clock = clock;
    }

    /** A registry view: every member named by one of its entries is a node. */
    public synchronized void proven(List<NodeLoad> view) {
        view.forEach(node -> proven.add(node.address().memberId()));
    }

    /** Looks at the members now; expels the strangers past their grace when this node coordinates. */
    public synchronized List<Stranger> check() {
        Instant now = clock.instant();
        Map<String, String> members = membership.addresses();
        proven.retainAll(members.keySet());
        firstSeen.keySet().retainAll(members.keySet());
        told.retainAll(members.keySet());
        expelled.retainAll(members.keySet());
        String self = membership.localMemberId();
        List<Stranger> strangers = new ArrayList<>();
        members.forEach((id, address) -> {
            if (id.equals(self) || proven.contains(id)) {
                firstSeen.remove(id);
                return;
            }
            Instant since = firstSeen.computeIfAbsent(id, ignored -> now);
            if (Duration.between(since, now).compareTo(grace) < 0) {
                return;
            }
            strangers.add(new Stranger(id, address, since, null));
            long seconds = Duration.between(since, now).toSeconds();
            if (told.add(id)) {
                LOG.warn("member {} at {} joined the cluster {} s ago and has not proven itself a node (no registry "
                        + "entry sealed with the cluster key): a process without the cluster key, or a node that "
                        + "could not start", id, address, seconds);
            }
            if (expel && !expelled.contains(id) && membership.expel(id, "no sealed registry entry after "
                    + seconds + " s")) {
                expelled.add(id);
                expulsions.incrementAndGet();
                expelledRecently.addFirst(new Stranger(id, address, since, now));
                if (expelledRecently.size() > REMEMBERED) {
                    expelledRecently.removeLast();
                }
                LOG.warn("expelled member {} at {} from the cluster", id, address);
            }
        });
        current = List.copyOf(strangers);
        return current;
    }

    /** Checks every {@code every}, off the event loops (an expulsion takes Hazelcast's cluster lock). */
    public void start(Vertx vertx, Duration every) {
        timer = vertx.setPeriodic(every.toMillis(), id -> vertx.executeBlocking(this::check, false)
                .onFailure(e -> LOG.warn("could not check the cluster's members: {}", e.getMessage())));
    }

    public void stop(Vertx vertx) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    /**
     * Whether some member has not proven itself yet (a node that just joined, or a stranger): until it has, the
     * heartbeat reads every entry, so that a node proves itself within its grace on every node, not only at the next
     * whole read ({@code HeartbeatRead}).
     */
    public boolean anyUnproven() {
        String self = membership.localMemberId();
        for (String member : membership.memberIds()) {
            if (!member.equals(self) && !proven.contains(member)) {
                return true;
            }
        }
        return false;
    }

    /** The strangers of the last check that are still members. */
    public List<Stranger> current() {
        List<Stranger> last = current;
        if (last.isEmpty()) {
            return last;
        }
        Set<String> members = membership.memberIds();
        return last.stream().filter(stranger -> members.contains(stranger.memberId())).toList();
    }

    /** The last strangers this node expelled, newest first. */
    public synchronized List<Stranger> expelled() {
        return List.copyOf(expelledRecently);
    }

    public long expulsions() {
        return expulsions.get();
    }
}
