package org.farmgate.router.seal;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.partition.MigrationListener;
import com.hazelcast.partition.MigrationState;
import com.hazelcast.partition.PartitionService;
import com.hazelcast.partition.ReplicaMigrationEvent;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.farmgate.router.store.MemberContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the fences of a partition's entries to the member that takes a replica of the partition over by migration
 * (a member joined or merged back, or a backup is made anew after a loss). Where the owner decides
 * ({@link SealedMap.Policy#ownerDecides}) no other node knows those fences, and the new owner would otherwise decide
 * on a copy put back; a backup promoted to owner needs nothing, it kept the notes ({@link FenceNote}).
 *
 * <p>The member that gave a replica away sends, once Hazelcast says it moved, every fence it knows of the keys in that
 * partition, as sealed notes: they prove themselves, so they travel on Hazelcast's executor, whose member address
 * needs no mapping to a node. A join moves many partitions at once, so moves are gathered for
 * {@link #GATHER_MILLIS} and each partition's keys found in one pass. What is left: a copy put back between a
 * replica's move and its notes' arrival (the gathering's delay).
 */
public final class FenceHandoff implements MigrationListener, HazelcastInstanceAware {

    private static final Logger LOG = LoggerFactory.getLogger(FenceHandoff.class);
    static final String EXECUTOR = "farmgate.fence-handoff";
    static final long GATHER_MILLIS = 200;

    private final Seal seal;
    private final Fences fences;
    private final Map<UUID, Set<Integer>> moved = new HashMap<>();
    private volatile HazelcastInstance instance;
    private boolean gathering;

    public FenceHandoff(Seal seal, Fences fences) {
        this.seal = seal;
        this.fences = fences;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.instance = instance;
    }

    @Override
    public void replicaMigrationCompleted(ReplicaMigrationEvent event) {
        Member source = event.getSource();
        Member destination = event.getDestination();
        if (source == null || !source.localMember() || destination == null || destination.localMember()) {
            return;
        }
        synchronized (moved) {
            moved.computeIfAbsent(destination.getUuid(), member -> new HashSet<>()).add(event.getPartitionId());
            if (gathering) {
                return;
            }
            gathering = true;
        }
        CompletableFuture.runAsync(this::handOff, CompletableFuture.delayedExecutor(GATHER_MILLIS,
                TimeUnit.MILLISECONDS));
    }

    private void handOff() {
        Map<UUID, Set<Integer>> batch;
        synchronized (moved) {
            batch = Map.copyOf(moved);
            moved.clear();
            gathering = false;
        }
        HazelcastInstance member = instance;
        if (member == null || !member.getLifecycleService().isRunning()) {
            return;
        }
        try {
            PartitionService partitions = member.getPartitionService();
            Map<UUID, List<FenceNote>> notes = new HashMap<>();
            for (Fences.Fence fence : fences.snapshot()) {
                int partition = partitions.getPartition(fence.key()).getPartitionId();
                batch.forEach((destination, ids) -> {
                    if (ids.contains(partition)) {
                        notes.computeIfAbsent(destination, id -> new ArrayList<>()).add(FenceNote.of(seal, fence));
                    }
                });
            }
            for (Member to : member.getCluster().getMembers()) {
                List<FenceNote> theirs = notes.get(to.getUuid());
                if (theirs != null) {
                    member.getExecutorService(EXECUTOR).executeOnMember(new Delivery(theirs), to);
                    LOG.info("handed {} fences over to member {} with {} partitions it took", theirs.size(),
                            to.getUuid(), batch.get(to.getUuid()).size());
                }
            }
        } catch (RuntimeException e) {
            // A member leaving meanwhile: its partitions move again, and those moves are handed off in turn.
            LOG.warn("could not hand the fences of migrated partitions over: {}", e.toString());
        }
    }

    @Override
    public void migrationStarted(MigrationState state) {
    }

    @Override
    public void migrationFinished(MigrationState state) {
    }

    @Override
    public void replicaMigrationFailed(ReplicaMigrationEvent event) {
    }

    /** Run on the member that took the replicas over: each note believed only if it opens there. */
    static final class Delivery implements Runnable, Serializable, HazelcastInstanceAware {

        private static final long serialVersionUID = 1L;

        private final List<FenceNote> notes;
        private transient MemberContext member = MemberContext.NONE;

        Delivery(List<FenceNote> notes) {
            this.notes = List.copyOf(notes);
        }

        @Override
        public void setHazelcastInstance(HazelcastInstance instance) {
            member = new MemberContext(instance.getUserContext());
        }

        @Override
        public void run() {
            notes.forEach(note -> note.reached(member));
        }
    }
}
