package org.farmgate.router.seal;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one node knows of the latest write of each sealed entry: its revision, and whether it left a record or
 * removed it. A sealed record older than the latest write this node heard of is a replay (a member on the cluster
 * network copied it before the change and put it back), and is not believed.
 *
 * <p>A node hears of writes only in ways an attacker cannot forge: its own writes, the fences its peers publish on
 * the mutual-TLS event bus after theirs ({@link Channel}), and, for the entries it owns or backs up in a map whose
 * owner decides, the notes sealed into their backups and handed over with their partitions ({@link FenceNote},
 * {@link FenceHandoff}): those fences go to no other node. A node that joins asks a peer for every fence it holds.
 * Records only ever written under a time to live need their fences only that long; the others keep theirs as
 * long as memory allows ({@link #LIMIT}).
 *
 * <p>What this does not stop: a replay that reaches a reader before the fence of the write it undoes (the event
 * bus's delay, milliseconds), and a replay of a record whose fence this node forgot (past {@link #LIMIT}, or a fence
 * whose time to live ran out while a copy of the record lived on).
 */
public final class Fences {

    private static final Logger LOG = LoggerFactory.getLogger(Fences.class);
    /** About 150 MB of fences at worst; far more keys than a farm writes in the life of its records. */
    static final int LIMIT = 1_000_000;
    private static final int SWEEP_EVERY = 4096;

    /**
     * The latest write of one entry: records of {@code map} under {@code key} older than {@code revision} are replays.
     * {@code expiresAtMillis} is when no record that old can be alive any more (0: never).
     */
    public record Fence(String map, String key, long revision, boolean present, long expiresAtMillis)
            implements Serializable {
    }

    /** Where a node's own fences go: every peer, on the authenticated event bus. */
    @FunctionalInterface
    public interface Channel {
        void publish(Fence fence);
    }

    /**
     * A fence, when this node heard of it (the count of fences heard until then), and the revision of the one it
     * replaced with when that was heard: a read in flight while the newer arrived is still judged by the older.
     */
    private record Known(Fence fence, long heardAt, long priorRevision, long priorHeardAt) {

        Known after(Known prior) {
            return prior.fence().revision() >= fence.revision() ? prior
                    : new Known(fence, heardAt, prior.fence().revision(), prior.heardAt());
        }
    }

    private final Map<String, Known> latest = new ConcurrentHashMap<>();
    private final AtomicLong heard = new AtomicLong();
    private final RevisionClock clock;
    private final LongSupplier millis;
    private final AtomicInteger sinceSweep = new AtomicInteger();
    private volatile Channel channel = fence -> { };
    private volatile boolean warnedFull;

    public Fences(RevisionClock clock, LongSupplier millis) {
        this.clock = clock;
        this.millis = millis;
    }

    public Fences() {
        this(new RevisionClock(System::currentTimeMillis), System::currentTimeMillis);
    }

    /** The member's clock, which every revision this node writes or learns moves on. */
    public RevisionClock clock() {
        return clock;
    }

    public void publishTo(Channel channel) {
        this.channel = channel;
    }

    /** A write this node made: known here at once, then told to every peer. */
    public void wrote(Fence fence) {
        if (learn(fence)) {
            channel.publish(fence);
        }
    }

    /**
     * A write a peer made, or this node's own. A revision from too far in the future is refused (false): it would
     * make every later record of the key look like a replay.
     */
    public boolean learn(Fence fence) {
        if (!clock.follow(fence.revision())) {
            return false;
        }
        latest.merge(id(fence.map(), fence.key()), new Known(fence, heard.incrementAndGet(), 0, 0),
                (known, now) -> now.after(known));
        if (sinceSweep.incrementAndGet() >= SWEEP_EVERY) {
            sinceSweep.set(0);
            sweep();
        }
        return true;
    }

    /** The latest write this node knows of for the entry, or null. */
    public Fence of(String map, String key) {
        Known known = known(map, key);
        return known == null ? null : known.fence();
    }

    private Known known(String map, String key) {
        Known known = latest.get(id(map, key));
        if (known != null && expired(known.fence(), millis.getAsLong())) {
            latest.remove(id(map, key), known);
            return null;
        }
        return known;
    }

    /** Where this node's knowledge stands now: taken when a read is sent, given to {@link #isReplay} with its answer. */
    public long mark() {
        return heard.get();
    }

    /**
     * Whether a record of the entry at {@code revision}, read by a request sent at {@code asked} ({@link #mark}),
     * is older than a write this node had heard of before it asked: the owner held that write then, so an older
     * record is a copy put back. A fence heard while the answer was on its way proves nothing (the record was the
     * latest when read), so it does not count.
     */
    public boolean isReplay(String map, String key, long revision, long asked) {
        Known known = known(map, key);
        return known != null && (known.heardAt() <= asked && revision < known.fence().revision()
                || known.priorHeardAt() <= asked && revision < known.priorRevision());
    }

    /** {@link #isReplay} for a read sent now. */
    public boolean isReplay(String map, String key, long revision) {
        return isReplay(map, key, revision, mark());
    }

    /** The revision a new write of the entry must exceed. */
    public long floor(String map, String key) {
        Fence fence = of(map, key);
        return fence == null ? 0 : fence.revision();
    }

    /** Every fence still in force: what a joining node is given. */
    public List<Fence> snapshot() {
        long now = millis.getAsLong();
        List<Fence> out = new ArrayList<>(latest.size());
        latest.values().stream().map(Known::fence).filter(fence -> !expired(fence, now)).forEach(out::add);
        return out;
    }

    /** Forgets every fence: what a node knew is no longer the cluster's history (see FenceBus#relearn). */
    public void forgetAll() {
        latest.clear();
    }

    private void sweep() {
        long now = millis.getAsLong();
        latest.values().removeIf(known -> expired(known.fence(), now));
        if (latest.size() > LIMIT) {
            // Forgetting the oldest opens their keys to replay again: said once, loudly, rather than run out of memory.
            if (!warnedFull) {
                warnedFull = true;
                LOG.warn("more than {} sealed entries written; the oldest fences are forgotten, and records of "
                        + "their keys could be replayed", LIMIT);
            }
            List<Known> oldest = new ArrayList<>(latest.values());
            oldest.sort(Comparator.comparingLong(known -> known.fence().revision()));
            // Down to nine tenths, so that the sort is not paid again at the next sweep.
            oldest.subList(0, oldest.size() - LIMIT * 9 / 10).forEach(known -> latest.remove(
                    id(known.fence().map(), known.fence().key()), known));
        }
    }

    private static boolean expired(Fence fence, long now) {
        return fence.expiresAtMillis() != 0 && fence.expiresAtMillis() <= now;
    }

    private static String id(String map, String key) {
        return map + '\0' + key;
    }
}
