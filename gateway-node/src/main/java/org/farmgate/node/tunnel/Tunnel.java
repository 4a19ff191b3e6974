package org.farmgate.node.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import org.farmgate.node.guacd.ChunkReads;
import org.farmgate.node.guacd.GuacdConnection;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.session.GuacdHold;
import org.farmgate.node.session.RecordingTap;
import org.farmgate.node.session.SessionLink;
import org.farmgate.node.session.TunnelEnd;
import org.farmgate.node.session.TunnelListener;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Relays one WebSocket and its guacd connection both ways, on the WebSocket's event loop.
 *
 * <p>Back-pressure follows Vert.x's {@code PipeImpl}: when the destination's write queue is full the source is
 * paused, and the destination's drain handler resumes it, so a slow browser slows guacd down instead of filling
 * this node's memory. The client's own messages are read only while the client reads too: the tunnel answers its
 * pings, and a client that sends pings without reading the echoes would otherwise have this node queue them without
 * end (480 MB in 24 s, then out of memory, once). A side held like this for longer than the stall limit is cut, with
 * a timeout status: memory is bounded by the pause, the session's lifetime by the limit. Towards the client every
 * text message holds whole instructions only (guacamole-common-js drops a partial one); towards guacd only whole
 * instructions are forwarded, after the tunnel's own internal instructions (empty opcode) were taken out: a
 * {@code ping} is echoed, the rest dropped. guacd's bytes reach the client as the memory they were read into, copied
 * once to be checked ({@link InstructionCutter#withSlices}).
 *
 * <p>guacd's {@code error} is forwarded, then the WebSocket is closed with the error's status as the close reason,
 * which is where guacamole-common-js looks for it. Whatever ends first, the listener hears about it exactly once. As
 * in {@code PipeImpl}, a write that fails ends the tunnel (in Vert.x 5 that is the only place a failed write is
 * reported), and an ended tunnel leaves no handler of its own on either socket, so nothing it set can pause, resume
 * or write to guacd's connection once another holds it. When the client went without a word, guacd's connection is
 * offered to the listener ({@link GuacdHold}), which decides whether the session waits for the client; the tunnel
 * closes it otherwise.
 *
 * <p>Everything runs on the context the tunnel is given: the WebSocket's own, where its handlers run.
 */
public final class Tunnel implements SessionLink {

    private static final byte[] ERROR = "error".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DISCONNECT = "disconnect".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY = "key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MOUSE = "mouse".getBytes(StandardCharsets.US_ASCII);
    /** One WebSocket frame's worth: the default frame limit of most WebSocket libraries is 64 KiB. */
    static final int MAX_MESSAGE_BYTES = 65536;
    /**
     * The longest frame the tunnel sends a client: a message of whole instructions, or one longer instruction
     * alone. Browsers take any length; a node relaying a browser must take this much (NodeRelay).
     */
    static final int MAX_FRAME_TO_CLIENT = Math.max(MAX_MESSAGE_BYTES, WireLimits.FROM_GUACD.maxInstructionBytes());
    /** An internal instruction whose first argument is "ping"; the lengths make the prefix exact. */
    private static final byte[] PING = "0.,4.ping".getBytes(StandardCharsets.US_ASCII);
    /** RFC 6455's close code for a protocol violation. */
    static final short PROTOCOL_ERROR = 1002;

    private final Context context;
    private final WebSocketBase client;
    private final NetSocket guacd;
    private final GuacdConnection connection;
    private final String tunnelId;
    private final TunnelListener listener;
    private final Handler<AsyncResult<Void>> clientWritten = this::clientWritten;
    private final Handler<AsyncResult<Void>> guacdWritten = this::guacdWritten;
    private final NodeMetrics metrics;
    private long countedFromGuacd;
    private long countedFromClient;

    private final InstructionCutter fromGuacd = InstructionCutter.withSlices(WireLimits.FROM_GUACD);
    private final InstructionCutter fromClient = new InstructionCutter(WireLimits.GUACD_INBOUND);

    private Instruction guacdError;
    private int messageStart;
    private int messageEnd;
    private Buffer toGuacd;
    private int forwardFrom;
    private long bytesToClient;
    private long bytesToGuacd;
    private boolean ended;
    /** What keeps guacd's connection since the client left without a word, if anything does. */
    private Anchor keptBy;
    /** Why the client's messages are not being read: guacd's queue is full, or the client's own (echoes). */
    private boolean clientHeldByGuacd;
    private boolean clientHeldByEchoes;
    /** The client ended the session itself: its going is not an absence to wait out. */
    private boolean clientSaidDisconnect;
    private final ClientInput input;
    private final RecordingTap recording;
    private final StallWatch clientStall;
    private final StallWatch guacdStall;

    /**
     * @param context the WebSocket's context: the tunnel's handlers, timers and writes all run on it
     * @param stallLimit how long a side may read nothing while the other has data for it
     */
    public Tunnel(Context context, WebSocketBase client, GuacdConnection connection, String tunnelId,
            NodeMetrics metrics, Duration stallLimit, TunnelListener listener) {
        this(context, client, connection, tunnelId, metrics, stallLimit, listener, ClientInput.FULL,
                RecordingTap.NONE);
    }

    /**
     * @param input which of the client's instructions reach guacd
     * @param recording what hears the display and the input passing (a recorded session's), told as they pass
     */
    Tunnel(Context context, WebSocketBase client, GuacdConnection connection, String tunnelId, NodeMetrics metrics,
            Duration stallLimit, TunnelListener listener, ClientInput input, RecordingTap recording) {
        this.metrics = metrics;
        this.input = input;
        this.recording = recording;
        long limitMs = stallLimit.toMillis();
        this.clientStall = new StallWatch(context.owner(), limitMs, () -> end(TunnelEnd.Cause.CLIENT_ERROR,
                GuacamoleStatus.CLIENT_TIMEOUT.code(), "the client read nothing for " + stallLimit.toSeconds()
                        + " s while the session had data for it", false));
        this.guacdStall = new StallWatch(context.owner(), limitMs, () -> end(TunnelEnd.Cause.GUACD_ERROR,
                GuacamoleStatus.UPSTREAM_TIMEOUT.code(), "guacd read nothing for " + stallLimit.toSeconds()
                        + " s while the client had data for it", true));
        this.context = context;
        this.client = client;
        this.guacd = connection.socket();
        this.connection = connection;
        this.tunnelId = tunnelId;
        this.listener = listener;
    }

    /** Starts relaying; call on the WebSocket's event loop, right after the handshake succeeded. */
    public void start() {
        // Like Apache Guacamole's own tunnel: the first message names the tunnel.
        client.writeTextMessage(Instruction.of("", tunnelId).encode()).onComplete(clientWritten);
        ChunkReads.handler(guacd, this::onGuacdData);
        guacd.closeHandler(ignored -> onGuacdClosed());
        guacd.exceptionHandler(error -> end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(),
                "guacd connection failed: " + error.getMessage(), true));
        client.handler(this::onClientData);
        client.closeHandler(ignored -> onClientClosed());
        client.exceptionHandler(this::onClientFailure);
        if (connection.firstBytes().length() > 0) {
            onGuacdData(Bytes.byteBuf(connection.firstBytes()));
        }
        if (!ended) {
            guacd.resume();
            client.resume();
        }
    }

    /**
     * A broken WebSocket frame (oversized, unmasked, reserved bits or opcodes, a bad close) is the client's error,
     * ended as one, not as a client that left; the WebSocket layer has already answered it with a protocol-error
     * close. Anything else is the connection failing under the client.
     */
    private void onClientFailure(Throwable error) {
        if (error instanceof CorruptedFrameException) {
            end(TunnelEnd.Cause.CLIENT_ERROR, GuacamoleStatus.CLIENT_BAD_REQUEST.code(),
                    "the client broke the WebSocket protocol: " + error.getMessage(), false);
        } else {
            end(TunnelEnd.Cause.CLIENT_LEFT, 0, "the WebSocket failed: " + error.getMessage(), false);
        }
    }

    /**
     * A close with 1002 (protocol error) is a broken client too: a relaying node forwards it so when the browser
     * it relays broke the protocol there.
     */
    private void onClientClosed() {
        Short code = client.closeStatusCode();
        if (code != null && code == PROTOCOL_ERROR) {
            end(TunnelEnd.Cause.CLIENT_ERROR, GuacamoleStatus.CLIENT_BAD_REQUEST.code(),
                    "the client broke the WebSocket protocol: " + client.closeReason(), false);
        } else {
            end(TunnelEnd.Cause.CLIENT_LEFT, 0, "the client closed the WebSocket", false);
        }
    }

    @Override
    public void tell(String instruction) {
        context.runOnContext(ignored -> {
            if (!ended && !client.isClosed() && !client.writeQueueFull()) {
                client.writeTextMessage(instruction).onComplete(clientWritten);
            }
        });
    }

    /** Ends the tunnel from outside (DELETE, time limits, shutdown); safe from any thread. */
    public void terminate(GuacamoleStatus status, String message) {
        context.runOnContext(ignored -> end(TunnelEnd.Cause.TERMINATED, status.code(), message, true));
    }

    private void onGuacdData(ByteBuf chunk) {
        if (ended) {
            return;
        }
        if (client.isClosed()) {
            // Closed, but its close handler has not run yet. The chunk may end mid-instruction: an anchor that
            // keeps the connection continues this framing, so it must be given the chunk, not the next one.
            end(TunnelEnd.Cause.CLIENT_LEFT, 0, "the client closed the WebSocket", false);
            if (keptBy != null) {
                keptBy.take(chunk);
            }
            return;
        }
        messageStart = -1;
        try {
            fromGuacd.feed(chunk, this::inspectFromGuacd);
        } catch (WireFormatException e) {
            end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(),
                    "guacd sent malformed data: " + e.getMessage(), true);
            return;
        }
        if (messageStart >= 0 && messageEnd > messageStart) {
            sendToClient(messageStart, messageEnd);
        }
        if (guacdError != null) {
            endWithGuacdError();
            return;
        }
        if (client.writeQueueFull()) {
            guacd.pause();
            clientStall.held();
            client.drainHandler(ignored -> clientDrained());
        }
    }

    /** The client's queue has room again: guacd may send, and the client's pings may be answered. */
    private void clientDrained() {
        if (ended) {
            return; // guacd's connection may be another's by now
        }
        clientStall.released();
        guacd.resume();
        clientHeldByEchoes = false;
        resumeClient();
    }

    private void resumeClient() {
        if (!ended && !clientHeldByGuacd && !clientHeldByEchoes) {
            client.resume();
        }
    }

    /**
     * Gathers whole instructions into messages of at most {@link #MAX_MESSAGE_BYTES}, so that a client with the
     * common 64 KiB frame limit (Vert.x, many libraries) accepts them; a longer instruction goes alone.
     */
    private void inspectFromGuacd(byte[] bytes, int start, int end, InstructionScanner scanner) {
        if (messageStart < 0) {
            messageStart = start;
        } else if (end - messageStart > MAX_MESSAGE_BYTES) {
            sendToClient(messageStart, start);
            messageStart = start;
        }
        messageEnd = end;
        if (guacdError == null && scanner.completedOpcodeIs(ERROR)) {
            guacdError = decode(bytes, start, end);
        }
    }

    /** Sends {@code [start, end)} of the cutter's array, as the memory it was read into. */
    private void sendToClient(int start, int end) {
        recording.display(fromGuacd.array(), start, end);
        Bytes.writeText(client, fromGuacd.slice(start, end)).onComplete(clientWritten);
        bytesToClient += end - start;
        long instructions = fromGuacd.instructions();
        metrics.relayed(NodeMetrics.Direction.TO_CLIENT, end - start, instructions - countedFromGuacd);
        countedFromGuacd = instructions;
    }

    private void endWithGuacdError() {
        int status = Closing.statusOf(guacdError);
        // The error instruction itself already went to the client with the frame it came in.
        end(TunnelEnd.Cause.GUACD_ERROR, status, "guacd error " + status + ": " + Closing.messageOf(guacdError),
                false);
    }

    /**
     * A write the client's connection could not take: it is gone, whatever its close handler will say. Ended on the
     * next turn: a write to a closed WebSocket fails at once, in the middle of cutting guacd's chunk, and an anchor
     * started there would take over a framing whose chunk is only half read.
     */
    private void clientWritten(AsyncResult<Void> written) {
        if (written.failed()) {
            String message = "writing to the client failed: " + written.cause().getMessage();
            context.runOnContext(ignored -> end(TunnelEnd.Cause.CLIENT_LEFT, 0, message, false));
        }
    }

    private void guacdWritten(AsyncResult<Void> written) {
        if (written.failed()) {
            end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(), "writing to guacd failed: "
                    + written.cause().getMessage(), true);
        }
    }

    private void onGuacdClosed() {
        if (fromGuacd.isInsideInstruction()) {
            end(TunnelEnd.Cause.GUACD_ERROR, GuacamoleStatus.UPSTREAM_ERROR.code(),
                    "guacd closed the connection in the middle of an instruction", true);
        } else {
            end(TunnelEnd.Cause.GUACD_CLOSED, 0, "guacd closed the connection", false);
        }
    }

    private void onClientData(Buffer chunk) {
        if (ended) {
            return;
        }
        toGuacd = null;
        forwardFrom = -1;
        try {
            fromClient.feed(chunk, this::inspectFromClient);
        } catch (WireFormatException e) {
            end(TunnelEnd.Cause.CLIENT_ERROR, GuacamoleStatus.CLIENT_BAD_REQUEST.code(),
                    "malformed instruction from the client: " + e.getMessage(), true);
            return;
        }
        int complete = fromClient.completeLength();
        if (forwardFrom < 0) {
            if (complete > 0) {
                writeToGuacd(Buffer.buffer(complete).appendBytes(fromClient.array(), fromClient.completeStart(),
                        complete));
            }
        } else {
            appendForward(fromClient.array(), fromClient.completeEnd());
            if (toGuacd != null) {
                writeToGuacd(toGuacd);
            }
        }
        if (guacd.writeQueueFull()) {
            clientHeldByGuacd = true;
            client.pause();
            guacdStall.held();
            guacd.drainHandler(ignored -> {
                if (ended) {
                    return;
                }
                guacdStall.released();
                clientHeldByGuacd = false;
                resumeClient();
            });
        }
        if (client.writeQueueFull()) {
            // Our answers to the client (echoes) are not being read: read no more from it until they are.
            clientHeldByEchoes = true;
            client.pause();
            guacd.pause();
            clientStall.held();
            client.drainHandler(ignored -> clientDrained());
        }
    }

    private void inspectFromClient(byte[] bytes, int start, int end, InstructionScanner scanner) {
        boolean internal = scanner.completedIsInternal();
        if (!internal) {
            if (input.passes(scanner)) {
                clientSaidDisconnect |= scanner.completedOpcodeIs(DISCONNECT);
                if (recording.wantsInput() && (scanner.completedOpcodeIs(KEY) || scanner.completedOpcodeIs(MOUSE))) {
                    recording.input(bytes, start, end);
                }
                return;
            }
            metrics.watcherInputDropped(1); // as it happens: a watcher's attempts show while it is still there
        }
        // Left out of what goes to guacd: the bytes before it go on, the next forwarded range starts after it.
        if (forwardFrom < 0) {
            forwardFrom = fromClient.completeStart();
        }
        appendForward(bytes, start);
        forwardFrom = end;
        if (internal && startsWith(bytes, start, end, PING)) {
            // The client measures the tunnel's health by this echo; guacd must never see it.
            client.writeTextMessage(new String(bytes, start, end - start, StandardCharsets.UTF_8))
                    .onComplete(clientWritten);
        }
    }

    /** Adds the bytes between the last internal instruction and {@code upTo} to what goes to guacd. */
    private void appendForward(byte[] bytes, int upTo) {
        if (upTo > forwardFrom) {
            if (toGuacd == null) {
                toGuacd = Buffer.buffer(upTo - forwardFrom);
            }
            toGuacd.appendBytes(bytes, forwardFrom, upTo - forwardFrom);
        }
    }

    private void writeToGuacd(Buffer data) {
        bytesToGuacd += data.length();
        guacd.write(data).onComplete(guacdWritten);
        long instructions = fromClient.instructions();
        metrics.relayed(NodeMetrics.Direction.TO_GUACD, data.length(), instructions - countedFromClient);
        countedFromClient = instructions;
    }

    private void end(TunnelEnd.Cause cause, int status, String message, boolean sendErrorInstruction) {
        if (ended) {
            return;
        }
        ended = true;
        clientStall.released();
        guacdStall.released();
        Closing.clearHandlers(client);
        Closing.clearHandlers(guacd);
        fromClient.release();
        if (status != 0 && sendErrorInstruction) {
            Closing.withError(client, status, message);
        } else {
            Closing.withStatus(client, status);
        }
        if (cause == TunnelEnd.Cause.CLIENT_LEFT && clientSaidDisconnect) {
            cause = TunnelEnd.Cause.CLIENT_DISCONNECTED;
            message = "the client disconnected";
        }
        TunnelEnd result = new TunnelEnd(cause, status, message, bytesToClient, bytesToGuacd,
                fromGuacd.instructions(), fromClient.instructions());
        if (cause != TunnelEnd.Cause.CLIENT_LEFT) {
            Closing.leave(guacd);
            fromGuacd.release();
            listener.ended(result, null);
            return;
        }
        // The client went without saying so (a reload, a lost network): the session may want it joined again.
        Offer offer = new Offer();
        try {
            listener.ended(result, offer);
        } finally {
            offer.closed = true;
            if (offer.anchor == null) {
                Closing.leave(guacd);
                fromGuacd.release(); // an anchor keeps the framing, and releases it when it ends
            }
        }
    }

    /** guacd's connection, offered for the length of the listener's call. */
    private final class Offer implements GuacdHold {

        private Anchor anchor;
        private boolean closed;

        @Override
        public SessionLink keep(Consumer<TunnelEnd> anchorEnded) {
            if (closed || anchor != null) {
                throw new IllegalStateException("guacd's connection is offered once, during the call");
            }
            anchor = new Anchor(context, guacd, fromGuacd, recording, anchorEnded);
            anchor.start();
            keptBy = anchor;
            return anchor;
        }
    }

    /** One instruction the cutter's scanner has already validated: only split, not parsed again. */
    static Instruction decode(byte[] bytes, int start, int end) {
        return Instruction.decodeValidated(bytes, start, end);
    }

    private static boolean startsWith(byte[] bytes, int start, int end, byte[] prefix) {
        if (end - start < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[start + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
