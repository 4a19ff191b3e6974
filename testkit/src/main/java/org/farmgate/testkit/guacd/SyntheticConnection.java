package org.farmgate.testkit.guacd;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.farmgate.model.Protocol;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.GuacdArguments;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * One connection to the {@link SyntheticGuacd}, behaving as guacd 1.6.0 does on the wire: answers {@code select}
 * with the protocol's {@code args}, takes the handshake, answers {@code ready}, sends the protocol's first screen,
 * then a screen stream; reports a refused target the way guacd does; drops a silent user, and answers bad input with
 * {@code disconnect}. A {@code select} of a connection id ({@code $...}) joins that connection, as guacd lets a
 * second user do: the same {@code args}, {@code ready} with that id, and the whole current display (here its first
 * screen again); an unknown id gets the socket closed. What the client sent is kept for tests to inspect.
 */
public final class SyntheticConnection {

    private static final int MAX_RECORDED = 1000;

    private enum State {
        SELECT,
        HANDSHAKE,
        READY,
        /** The target refused: nothing more is sent, the socket stays open until the client closes it. */
        REFUSED,
        /**
         * No handshake 15 s after {@code args}: guacd's connection process has exited, but its parent still holds
         * the socket, so it stays open, silent, until the client sends anything (then it closes) or closes it.
         */
        ABANDONED,
        CLOSED
    }

    private final Vertx vertx;
    private final NetSocket socket;
    private final SyntheticGuacdOptions options;
    private final GuacamoleParser parser = new GuacamoleParser(WireLimits.GUACD_INBOUND);
    private final String connectionId = "$" + UUID.randomUUID();
    private final Deque<Buffer> chunkQueue = new ArrayDeque<>();
    private final RoundTripRecorder recorder;
    /** Frames whose {@code sync} the client has not answered yet, oldest first, bounded. */
    private final Map<String, Long> syncsSent = new LinkedHashMap<>(64, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > 1024;
        }
    };

    private State state = State.SELECT;
    private Protocol protocol;
    private List<String> offeredArgs = List.of();
    private final Map<String, String> connectValues = new LinkedHashMap<>();
    private final Map<String, List<String>> handshake = new LinkedHashMap<>();
    private final List<Instruction> received = new ArrayList<>();
    private String connectVersion;
    private long idleTimer = -1;
    private long streamTimer = -1;
    private long bytesSent;
    private long framesSent;
    private long fastClockStart = -1;
    private byte[] ballast;
    private Buffer frameImage;
    private boolean chunkWriterBusy;
    private boolean socketClosed;

    /** The guacd's connections that may be joined. */
    interface Joinable {
        SyntheticConnection find(String id);

        void closed(SyntheticConnection connection);
    }

    private final Joinable live;
    private String joined;

    SyntheticConnection(Vertx vertx, NetSocket socket, SyntheticGuacdOptions options, RoundTripRecorder recorder,
            Joinable live) {
        this.live = live;
        this.vertx = vertx;
        this.socket = socket;
        this.options = options;
        this.recorder = recorder;
    }

    void start() {
        socket.handler(this::onData);
        socket.closeHandler(ignored -> onClosed());
        socket.exceptionHandler(ignored -> socket.close());
        if (options.memoryPerConnectionMb() > 0) {
            ballast = new byte[options.memoryPerConnectionMb() << 20];
            Arrays.fill(ballast, (byte) 1); // touch every page, so it is really resident
        }
    }

    // --- what tests read (from any thread) ---

    public synchronized Protocol protocol() {
        return protocol;
    }

    /** Values of {@code connect}, by the argument name guacd listed at that position. */
    public synchronized Map<String, String> connectValues() {
        return Map.copyOf(connectValues);
    }

    public synchronized String connectVersion() {
        return connectVersion;
    }

    /** Handshake instructions before {@code connect} ({@code size}, {@code audio}, {@code timezone}...). */
    public synchronized Map<String, List<String>> handshake() {
        return Map.copyOf(handshake);
    }

    /** Instructions the client sent after {@code ready} (the first 1000). */
    public synchronized List<Instruction> received() {
        return List.copyOf(received);
    }

    /** Whether the TCP connection is still open (a leak check: every tunnel must close its guacd socket). */
    public synchronized boolean isOpen() {
        return !socketClosed;
    }

    /** Open, answered with {@code args}, and nothing since: how a health probe that holds its connection looks. */
    public synchronized boolean isWaitingAfterArgs() {
        return !socketClosed && (state == State.HANDSHAKE || state == State.ABANDONED) && handshake.isEmpty();
    }

    public synchronized long bytesSent() {
        return bytesSent;
    }

    public synchronized long framesSent() {
        return framesSent;
    }

    public String connectionId() {
        return connectionId;
    }

    /** The id of the connection this one joined, or null for a connection of its own. */
    public synchronized String joined() {
        return joined;
    }

    /** The id users of this connection see in {@code ready}: its own, or the one it joined. */
    String sharedId() {
        String of = joined();
        return of != null ? of : connectionId;
    }

    // --- the protocol ---

    private void onData(Buffer chunk) {
        if (state == State.ABANDONED) {
            close();
            return;
        }
        byte[] bytes = chunk.getBytes();
        try {
            parser.feed(bytes, 0, bytes.length, this::onInstruction);
        } catch (WireFormatException e) {
            // guacd: "Instruction parse error" - the user is stopped with a bare disconnect, no error.
            if (state == State.READY || state == State.REFUSED) {
                write("10.disconnect;");
            }
            close();
        }
    }

    private void onInstruction(Instruction instruction) {
        switch (state) {
            case SELECT -> onSelect(instruction);
            case HANDSHAKE -> onHandshake(instruction);
            case READY, REFUSED -> onReadyInstruction(instruction);
            default -> {
            }
        }
    }

    private void onSelect(Instruction instruction) {
        if (!instruction.opcode().equals("select") || instruction.args().size() != 1) {
            close();
            return;
        }
        Protocol selected;
        String join = instruction.arg(0).startsWith("$") ? instruction.arg(0) : null;
        if (join != null) {
            SyntheticConnection owner = live.find(join);
            if (owner == null) {
                close(); // guacd logs "Connection ... does not exist" and closes the socket
                return;
            }
            selected = owner.protocol();
            synchronized (this) {
                joined = join;
            }
        } else {
            try {
                selected = Protocol.parse(instruction.arg(0));
            } catch (IllegalArgumentException e) {
                selected = null;
            }
        }
        if (selected == null || !options.installed().contains(selected)) {
            // guacd logs "Support for protocol ... is not installed" and says nothing to the client.
            state = State.CLOSED;
            return;
        }
        synchronized (this) {
            protocol = selected;
            offeredArgs = selected.guacdArguments();
        }
        List<String> args = new ArrayList<>();
        args.add(GuacdArguments.VERSION_1_5_0);
        args.addAll(offeredArgs);
        write(new Instruction("args", args).encode());
        state = State.HANDSHAKE;
        if (!options.handshakeTimeout().isZero()) {
            vertx.setTimer(options.handshakeTimeout().toMillis(), ignored -> {
                if (state == State.HANDSHAKE) {
                    state = State.ABANDONED;
                }
            });
        }
    }

    private void onHandshake(Instruction instruction) {
        switch (instruction.opcode()) {
            case "size", "audio", "video", "image", "timezone", "name" -> {
                synchronized (this) {
                    handshake.put(instruction.opcode(), instruction.args());
                }
            }
            case "connect" -> onConnect(instruction.args());
            default -> close();
        }
    }

    private void onConnect(List<String> values) {
        if (values.size() != offeredArgs.size() + 1) {
            close(); // guacd refuses a connect whose values do not match its args
            return;
        }
        synchronized (this) {
            connectVersion = values.get(0);
            for (int i = 0; i < offeredArgs.size(); i++) {
                connectValues.put(offeredArgs.get(i), values.get(i + 1));
            }
        }
        state = State.READY;
        vertx.setTimer(Math.max(1, options.readyDelay().toMillis()), ignored -> sendReady());
    }

    /**
     * {@code ready}, then what guacd 1.6.0 was seen to send for the target (captured against OpenSSH, TigerVNC and
     * xrdp on loopback): the first screen and a stream, or the target's refusal. After refusing, guacd keeps the
     * socket open until the client closes it, so a gateway that forgets to close it leaks.
     */
    private void sendReady() {
        if (state != State.READY) {
            return;
        }
        List<String> size = handshake.getOrDefault("size", List.of("1024", "768", "96"));
        int width = Integer.parseInt(size.get(0));
        int height = Integer.parseInt(size.get(1));
        String ready = Instruction.of("ready", sharedId()).encode();
        resetIdleTimer();

        String port = connectValues.getOrDefault("port", "");
        boolean closedPort = !port.isEmpty() && options.closedPorts().contains(Integer.parseInt(port));
        boolean wrongPassword = options.wrongPassword().equals(connectValues.get("password"));
        if (closedPort && protocol == Protocol.VNC) {
            write(ready);
            refuse(GuacamoleStatus.UPSTREAM_NOT_FOUND, "Aborted. See logs.", false);
            return;
        }
        if (closedPort && protocol == Protocol.RDP) {
            write(ready + Instruction.of("audio", "1", "audio/L16;rate=44100,channels=2").encode());
            refuse(GuacamoleStatus.UPSTREAM_NOT_FOUND, "Server refused connection (wrong security type?)", false);
            return;
        }
        if (protocol == Protocol.SSH && !hostKeyMatches(port)) {
            // guacd logs "Host key did not match any provided known host keys." and tells its users no more
            write(ready);
            refuse(GuacamoleStatus.SERVER_ERROR, "Aborted. See logs.", false);
            return;
        }
        if (wrongPassword && protocol == Protocol.VNC) {
            write(ready);
            vertx.setTimer(100, ignored -> refuse(GuacamoleStatus.UPSTREAM_NOT_FOUND, "Aborted. See logs.", false));
            return;
        }
        StringBuilder out = new StringBuilder(ready);
        FirstScreen.of(protocol, width, height, timestamp(), options.screen()).forEach(i -> out.append(i.encode()));
        options.afterReady().forEach(i -> out.append(i.encode()));
        write(out.toString());
        if (closedPort) {
            refuse(GuacamoleStatus.UPSTREAM_ERROR, "Aborted. See logs.", true);
        } else if (wrongPassword && protocol == Protocol.SSH) {
            vertx.setTimer(Math.max(1, options.authFailureDelay().toMillis()),
                    ignored -> refuse(GuacamoleStatus.CLIENT_UNAUTHORIZED, "Aborted. See logs.", true));
        } else {
            // RDP with a wrong password streams xrdp's own login screen: no error, like any other session.
            startStream();
        }
    }

    private void onReadyInstruction(Instruction instruction) {
        resetIdleTimer();
        if (recorder != null && instruction.opcode().equals("sync") && !instruction.args().isEmpty()) {
            Long sent = syncsSent.remove(instruction.arg(0));
            if (sent != null) {
                recorder.record(System.nanoTime() - sent);
            }
        }
        synchronized (this) {
            if (received.size() < MAX_RECORDED) {
                received.add(instruction);
            }
        }
        if (instruction.opcode().equals("disconnect")) {
            close();
        } else if (options.echoKeys() && instruction.opcode().equals("key") && instruction.args().size() == 2
                && instruction.arg(1).equals("1") && state == State.READY) {
            write(ECHO + Instruction.of("sync", String.valueOf(timestamp()), "1").encode());
        }
    }

    /** The glyph of a typed character, roughly: a filled 10x16 cell on the default layer. */
    private static final String ECHO = Instruction.of("rect", "0", "0", "0", "10", "16").encode()
            + Instruction.of("cfill", "14", "0", "255", "255", "255", "255").encode();

    private void startStream() {
        if (options.frameBytes() <= 0) {
            return;
        }
        frameImage = imageFrame(options.frameBytes());
        if (options.flood()) {
            pumpFlood();
        } else if (!options.frameInterval().isZero()) {
            streamTimer = vertx.setPeriodic(options.frameInterval().toMillis(), ignored -> {
                if (!socket.writeQueueFull()) {
                    writeFrame();
                }
            });
        }
    }

    /** As many frames as the socket takes, a bounded batch per event-loop turn so the loop stays fair. */
    private void pumpFlood() {
        for (int i = 0; i < 64 && state == State.READY; i++) {
            if (socket.writeQueueFull()) {
                socket.drainHandler(ignored -> pumpFlood());
                return;
            }
            writeFrame();
        }
        if (state == State.READY) {
            vertx.runOnContext(ignored -> pumpFlood());
        }
    }

    private void writeFrame() {
        String timestamp = String.valueOf(frameTime());
        if (recorder != null) {
            syncsSent.putIfAbsent(timestamp, System.nanoTime());
        }
        Buffer frame = frameImage.copy().appendString(Instruction.of("sync", timestamp, "1").encode());
        synchronized (this) {
            framesSent++;
        }
        write(frame);
    }

    /** The target failed: guacd reports it and stops the connection, but leaves the socket to the client. */
    /** guacd's check: no {@code host-key}, or one whose host and key are the server's. */
    private boolean hostKeyMatches(String port) {
        String given = connectValues.getOrDefault("host-key", "");
        String shown = port.isEmpty() ? null : options.sshHostKey(Integer.parseInt(port));
        if (given.isEmpty() || shown == null) {
            return true;
        }
        String address = connectValues.getOrDefault("hostname", "");
        String host = port.equals("22") ? address : "[" + address + "]:" + port;
        String[] line = given.trim().split("\\s+");
        String[] key = shown.trim().split("\\s+");
        return line.length >= 3 && line[0].equals(host) && line[1].equals(key[0]) && line[2].equals(key[1]);
    }

    private void refuse(GuacamoleStatus status, String message, boolean disconnect) {
        if (state != State.READY) {
            return;
        }
        state = State.REFUSED;
        stopTimers();
        write(Instruction.of("error", message, String.valueOf(status.code())).encode()
                + (disconnect ? "10.disconnect;" : ""));
    }

    private void resetIdleTimer() {
        if (idleTimer >= 0) {
            vertx.cancelTimer(idleTimer);
            idleTimer = -1;
        }
        if (options.idleTimeout().isZero()) {
            return;
        }
        idleTimer = vertx.setTimer(options.idleTimeout().toMillis(), ignored -> {
            idleTimer = -1;
            if (state == State.READY) {
                // guacd: "User is not responding" - the user is removed and its socket closed.
                write(Instruction.of("error", "Aborted. See logs.", String.valueOf(
                        GuacamoleStatus.CLIENT_TIMEOUT.code())).encode() + "10.disconnect;");
                close();
            }
        });
    }

    private void write(String text) {
        write(Buffer.buffer(text.getBytes(StandardCharsets.UTF_8)));
    }

    private void write(Buffer data) {
        synchronized (this) {
            bytesSent += data.length();
        }
        int chunk = options.writeChunkBytes();
        if (chunk <= 0) {
            socket.write(data);
            return;
        }
        for (int i = 0; i < data.length(); i += chunk) {
            chunkQueue.add(data.getBuffer(i, Math.min(data.length(), i + chunk)));
        }
        drainChunks();
    }

    /** One piece per millisecond, so that the reader really sees them in separate reads. */
    private void drainChunks() {
        if (chunkWriterBusy || chunkQueue.isEmpty()) {
            return;
        }
        chunkWriterBusy = true;
        socket.write(chunkQueue.poll());
        vertx.setTimer(1, ignored -> {
            chunkWriterBusy = false;
            if (chunkQueue.isEmpty() && state == State.CLOSED) {
                socket.close();
            }
            drainChunks();
        });
    }

    private void close() {
        synchronized (this) {
            state = State.CLOSED;
        }
        stopTimers();
        if (chunkQueue.isEmpty() && !chunkWriterBusy) {
            socket.close();
        } // else the chunk writer closes after the last piece
    }

    private void onClosed() {
        synchronized (this) {
            state = State.CLOSED;
            socketClosed = true;
        }
        live.closed(this);
        stopTimers();
        ballast = null;
    }

    private void stopTimers() {
        if (idleTimer >= 0) {
            vertx.cancelTimer(idleTimer);
            idleTimer = -1;
        }
        if (streamTimer >= 0) {
            vertx.cancelTimer(streamTimer);
            streamTimer = -1;
        }
    }

    private static long timestamp() {
        return System.nanoTime() / 1_000_000;
    }

    /** guacd's clock for the next frame: the real one, or the fast one a frame at a time from the stream's start. */
    private long frameTime() {
        long step = options.clockStep().toMillis();
        if (step == 0) {
            return timestamp();
        }
        if (fastClockStart < 0) {
            fastClockStart = timestamp();
        }
        synchronized (this) {
            return fastClockStart + framesSent * step;
        }
    }

    /** {@code img}, blobs of at most 6048 base64 characters (guacd's limit), {@code end}. */
    static Buffer imageFrame(int bytes) {
        StringBuilder out = new StringBuilder(bytes + 256);
        out.append(Instruction.of("img", "1", "14", "0", "image/jpeg", "0", "0").encode());
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        StringBuilder blob = new StringBuilder(6048);
        for (int left = bytes; left > 0; left -= 6048) {
            blob.setLength(0);
            int n = Math.min(6048, left);
            for (int i = 0; i < n; i++) {
                blob.append(alphabet.charAt((i * 31 + left) & 63));
            }
            out.append(Instruction.of("blob", "1", blob.toString()).encode());
        }
        out.append(Instruction.of("end", "1").encode());
        return Buffer.buffer(out.toString());
    }
}
