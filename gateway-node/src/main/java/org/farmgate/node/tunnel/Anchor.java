package org.farmgate.node.tunnel;

import io.netty.buffer.ByteBuf;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.farmgate.node.guacd.ChunkReads;
import org.farmgate.node.session.RecordingTap;
import org.farmgate.node.session.SessionLink;
import org.farmgate.node.session.TunnelEnd;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;

/**
 * Holds a session's guacd connection while no client is attached: it answers guacd's {@code sync}s and sends a
 * {@code nop} now and then, as a client would (guacd drops a user silent for 15 s, and with its last user the whole
 * connection), and drops the display updates. A client that comes back joins the connection anew and is sent the
 * whole current display by guacd; this user stays, so the connection outlives every client that leaves. Runs on the
 * event loop of the tunnel it took over from, continuing that tunnel's framing. A recorded session's display is
 * recorded here too, before it is dropped: its recording has no gap while the browser is away.
 */
final class Anchor implements SessionLink {

    private static final byte[] SYNC = "sync".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ERROR = "error".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DISCONNECT = "disconnect".getBytes(StandardCharsets.US_ASCII);
    private static final long NOP_INTERVAL_MS = 5000;

    private final Context context;
    private final NetSocket guacd;
    private final InstructionCutter fromGuacd;
    private final RecordingTap recording;
    private final Consumer<TunnelEnd> listener;
    private long nopTimer = -1;
    private boolean ended;

    Anchor(Context context, NetSocket guacd, InstructionCutter fromGuacd, RecordingTap recording,
            Consumer<TunnelEnd> listener) {
        this.context = context;
        this.recording = recording;
        this.guacd = guacd;
        this.fromGuacd = fromGuacd;
        this.listener = listener;
    }

    void start() {
        ChunkReads.handler(guacd, this::take);
        guacd.closeHandler(ignored -> end(TunnelEnd.Cause.GUACD_CLOSED, 0, "guacd closed the connection while no "
                + "client was attached"));
        guacd.exceptionHandler(error -> end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(),
                "guacd connection failed while no client was attached: " + error.getMessage()));
        guacd.drainHandler(null);
        nopTimer = context.owner().setPeriodic(NOP_INTERVAL_MS, id -> {
            if (!ended && !guacd.writeQueueFull()) {
                guacd.write(Instruction.of("nop").encode()).onComplete(this::written);
            }
        });
        // On a turn of its own: a resume drains what guacd sent while paused at once, and the tunnel may still
        // have a chunk of its own to hand over first (take).
        context.runOnContext(ignored -> {
            if (!ended) {
                guacd.resume();
            }
        });
    }

    /** guacd's data, from where the tunnel it took over from stopped reading. */
    void take(ByteBuf chunk) {
        if (ended) {
            return;
        }
        try {
            fromGuacd.feed(chunk, this::onInstruction);
        } catch (WireFormatException e) {
            end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(), "guacd sent malformed data: "
                    + e.getMessage());
        }
    }

    private void onInstruction(byte[] bytes, int start, int end, InstructionScanner scanner) {
        recording.display(bytes, start, end);
        if (scanner.completedOpcodeIs(SYNC)) {
            Instruction sync = Tunnel.decode(bytes, start, end);
            if (!sync.args().isEmpty() && !guacd.writeQueueFull()) {
                guacd.write(Instruction.of("sync", sync.arg(0)).encode()).onComplete(this::written);
            }
        } else if (scanner.completedOpcodeIs(ERROR)) {
            Instruction error = Tunnel.decode(bytes, start, end);
            end(TunnelEnd.Cause.GUACD_ERROR, Closing.statusOf(error), "guacd: " + Closing.messageOf(error));
        } else if (scanner.completedOpcodeIs(DISCONNECT)) {
            end(TunnelEnd.Cause.GUACD_CLOSED, 0, "guacd ended the connection while no client was attached");
        }
    }

    private void written(AsyncResult<Void> written) {
        if (written.failed()) {
            end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(), "writing to guacd failed while "
                    + "no client was attached: " + written.cause().getMessage());
        }
    }

    /** Lets the connection go (the grace ran out, the session was deleted, the node stops); safe from any thread. */
    @Override
    public void terminate(GuacamoleStatus status, String reason) {
        context.runOnContext(ignored -> end(TunnelEnd.Cause.TERMINATED, 0, reason));
    }

    private void end(TunnelEnd.Cause cause, int status, String message) {
        if (ended) {
            return;
        }
        ended = true;
        if (nopTimer >= 0) {
            context.owner().cancelTimer(nopTimer);
        }
        Closing.clearHandlers(guacd);
        Closing.leave(guacd);
        fromGuacd.release();
        listener.accept(new TunnelEnd(cause, status, message, 0, 0, fromGuacd.instructions(), 0));
    }
}
