package org.farmgate.node.peer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.farmgate.router.seal.Fences;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries fences between nodes on the event bus, which in a secured cluster only holders of a node certificate can
 * speak on: what a member on the cluster network writes into the maps never reaches it. A node's fences go out in
 * batches every {@link #BATCH_MILLIS} (a burst of creates costs one message per peer, not one per write); a node that
 * starts asks one peer for every fence it holds before it serves.
 *
 * <p>The batch delay is part of the window a replay has: a copy put back within it, and read within it on another
 * node, is believed there.
 */
public final class FenceBus implements Fences.Channel {

    private static final Logger LOG = LoggerFactory.getLogger(FenceBus.class);
    static final String FENCES = "farmgate.fences";
    static final String SNAPSHOT = "farmgate.fences.snapshot";
    static final long BATCH_MILLIS = 5;
    private static final long SNAPSHOT_TIMEOUT_MILLIS = 10_000;
    /** Bounds what one field of a message may make a node allocate: map names and keys are short. */
    private static final int LONGEST_STRING = 64 * 1024;

    private final Vertx vertx;
    private final Fences fences;
    private final Queue<Fences.Fence> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushing = new AtomicBoolean();
    private final List<MessageConsumer<Buffer>> consumers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile MessageConsumer<Buffer> snapshots;

    public FenceBus(Vertx vertx, Fences fences) {
        this.vertx = vertx;
        this.fences = fences;
    }

    /** Learns the peers' fences, then listens and publishes; completes when the node may serve. */
    public Future<Void> start() {
        consumers.add(vertx.eventBus().<Buffer>consumer(FENCES, message -> learn(message.body())));
        return learnFromAPeer().onComplete(ignored -> fences.publishTo(this));
    }

    /**
     * After a split healed with this node on the side whose data was dropped, what it knew of the latest writes is
     * the lost side's: it forgets that and learns the surviving side's, or it would take every record the other side
     * kept for a copy put back.
     */
    public Future<Void> relearn() {
        fences.forgetAll();
        MessageConsumer<Buffer> serving = snapshots;
        return (serving == null ? Future.<Void>succeededFuture() : serving.unregister()).compose(ignored -> {
            consumers.remove(serving);
            return learnFromAPeer();
        });
    }

    /** Asks a peer, while this node serves no snapshot itself (so that the request goes to a peer), then serves. */
    private Future<Void> learnFromAPeer() {
        return vertx.eventBus().<Buffer>request(SNAPSHOT, Buffer.buffer(),
                        new DeliveryOptions().setSendTimeout(SNAPSHOT_TIMEOUT_MILLIS))
                .map(reply -> {
                    int learnt = learn(reply.body());
                    LOG.info("learnt {} fences of sealed records from a peer", learnt);
                    return (Void) null;
                })
                .recover(e -> {
                    // The first node has no peer to ask; a peer that could not answer leaves this node knowing only
                    // what it hears from now on, which is said.
                    LOG.info("no fences learnt from a peer ({}); replays of records written before this node "
                            + "joined are recognised only once they are written again", e.getMessage());
                    return Future.succeededFuture();
                })
                .onComplete(ignored -> {
                    snapshots = vertx.eventBus().<Buffer>consumer(SNAPSHOT, message ->
                            message.reply(encode(fences.snapshot())));
                    consumers.add(snapshots);
                });
    }

    public Future<Void> stop() {
        fences.publishTo(fence -> { });
        return Future.all(consumers.stream().map(MessageConsumer::unregister).toList()).mapEmpty();
    }

    @Override
    public void publish(Fences.Fence fence) {
        pending.add(fence);
        if (flushing.compareAndSet(false, true)) {
            vertx.setTimer(BATCH_MILLIS, id -> flush());
        }
    }

    private void flush() {
        flushing.set(false);
        List<Fences.Fence> batch = new ArrayList<>();
        for (Fences.Fence fence; (fence = pending.poll()) != null; ) {
            batch.add(fence);
        }
        if (!batch.isEmpty()) {
            vertx.eventBus().publish(FENCES, encode(batch));
        }
    }

    private int learn(Buffer body) {
        try {
            List<Fences.Fence> heard = decode(body);
            heard.forEach(fences::learn);
            return heard.size();
        } catch (RuntimeException e) {
            LOG.warn("an unreadable batch of fences from a peer was ignored: {}", e.getMessage());
            return 0;
        }
    }

    static Buffer encode(List<Fences.Fence> batch) {
        Buffer out = Buffer.buffer(batch.size() * 64);
        out.appendInt(batch.size());
        for (Fences.Fence fence : batch) {
            string(out, fence.map());
            string(out, fence.key());
            out.appendLong(fence.revision()).appendByte((byte) (fence.present() ? 1 : 0))
                    .appendLong(fence.expiresAtMillis());
        }
        return out;
    }

    static List<Fences.Fence> decode(Buffer in) {
        int count = in.getInt(0);
        int[] at = {4}; // where the next field starts, moved on by each read
        if (count < 0 || count > in.length() / 25) {
            throw new IllegalArgumentException("a batch claiming " + count + " fences in " + in.length() + " bytes");
        }
        List<Fences.Fence> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String map = string(in, at);
            String key = string(in, at);
            long revision = in.getLong(at[0]);
            boolean present = in.getByte(at[0] + 8) != 0;
            long expires = in.getLong(at[0] + 9);
            at[0] += 17;
            out.add(new Fences.Fence(map, key, revision, present, expires));
        }
        return out;
    }

    private static void string(Buffer out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.appendInt(bytes.length).appendBytes(bytes);
    }

    private static String string(Buffer in, int[] at) {
        int length = in.getInt(at[0]);
        if (length < 0 || length > LONGEST_STRING || at[0] + 4 + length > in.length()) {
            throw new IllegalArgumentException("a fence field of " + length + " bytes");
        }
        String value = in.getString(at[0] + 4, at[0] + 4 + length, StandardCharsets.UTF_8.name());
        at[0] += 4 + length;
        return value;
    }
}
