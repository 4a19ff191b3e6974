package org.farmgate.node.guacd;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * One guacd handshake on a fresh socket: {@code select}, read {@code args}, send {@code size}, {@code audio},
 * {@code video}, {@code image}, {@code timezone}, {@code name} and {@code connect} with values placed by argument
 * name, then wait for {@code ready}. Runs on the socket's event loop; every wait has its own timer.
 */
final class Handshake {

    private enum Stage {
        AWAIT_ARGS("waiting for 'args'"),
        AWAIT_READY("waiting for 'ready'"),
        DONE("done");

        private final String description;

        Stage(String description) {
            this.description = description;
        }
    }

    private final Vertx vertx;
    private final NetSocket socket;
    private final HandshakeRequest request;
    private final long stepTimeoutMs;
    private final Promise<GuacdConnection> result = Promise.promise();
    private final GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);

    private Stage stage = Stage.AWAIT_ARGS;
    private long timer = -1;
    private ProtocolVersion version;
    private String connectionId;

    Handshake(Vertx vertx, NetSocket socket, HandshakeRequest request, Duration stepTimeout) {
        this.vertx = vertx;
        this.socket = socket;
        this.request = request;
        this.stepTimeoutMs = stepTimeout.toMillis();
    }

    Future<GuacdConnection> run() {
        socket.handler(this::onData);
        socket.exceptionHandler(error -> fail(GuacamoleStatus.UPSTREAM_ERROR,
                "guacd connection failed while " + stage.description + ": " + error.getMessage()));
        socket.closeHandler(ignored -> fail(GuacamoleStatus.UPSTREAM_ERROR,
                "guacd closed the connection while " + stage.description));
        socket.write(Instruction.of("select", request.protocol().wireName()).encode());
        armTimer("guacd sent no 'args' after 'select," + request.protocol().wireName()
                + "' (guacd stays silent when that protocol is not installed)");
        return result.future();
    }

    private void onData(Buffer chunk) {
        if (stage == Stage.DONE) {
            return;
        }
        byte[] bytes = chunk.getBytes();
        int stop;
        try {
            stop = parser.feedUntil(bytes, 0, bytes.length, this::onInstruction);
        } catch (WireFormatException e) {
            fail(GuacamoleStatus.UPSTREAM_ERROR, "guacd sent malformed data while " + stage.description + ": "
                    + e.getMessage());
            return;
        }
        if (stage == Stage.DONE && !result.future().isComplete()) {
            // Whatever follows 'ready' in this read belongs to the session: hand it over byte for byte.
            Buffer rest = Buffer.buffer(bytes).getBuffer(stop, bytes.length);
            socket.pause();
            socket.handler(null);
            socket.exceptionHandler(null);
            socket.closeHandler(null);
            result.complete(new GuacdConnection(socket, connectionId, version.name(), rest));
        }
    }

    private boolean onInstruction(Instruction instruction) {
        if (result.future().isComplete()) {
            return false;
        }
        if (instruction.opcode().equals("error")) {
            failWithGuacdError(instruction);
            return false;
        }
        switch (stage) {
            case AWAIT_ARGS -> {
                if (!instruction.opcode().equals("args")) {
                    fail(GuacamoleStatus.UPSTREAM_ERROR, "guacd answered 'select' with '" + instruction.opcode()
                            + "' instead of 'args'");
                    return false;
                }
                return sendConnect(instruction.args());
            }
            case AWAIT_READY -> {
                if (!instruction.opcode().equals("ready")) {
                    fail(GuacamoleStatus.UPSTREAM_ERROR, "guacd answered 'connect' with '" + instruction.opcode()
                            + "' instead of 'ready'");
                    return false;
                }
                if (instruction.args().isEmpty() || instruction.arg(0).isEmpty()) {
                    // guacd 1.6.0 always names the connection ($ and a UUID); without it nobody can join or trace it.
                    fail(GuacamoleStatus.UPSTREAM_ERROR, "guacd's 'ready' carries no connection id");
                    return false;
                }
                cancelTimer();
                connectionId = instruction.arg(0);
                stage = Stage.DONE;
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    private boolean sendConnect(List<String> args) {
        boolean announced = ProtocolVersion.announcesVersion(args);
        version = announced ? ProtocolVersion.answerTo(args.get(0)) : ProtocolVersion.VERSION_1_0_0;
        List<String> names = announced ? args.subList(1, args.size()) : args;
        List<String> values = new ArrayList<>(names.size() + 1);
        if (announced) {
            values.add(version.name());
        }
        for (String name : names) {
            values.add(request.arguments().getOrDefault(name, ""));
        }

        List<Instruction> out = new ArrayList<>();
        out.add(Instruction.of("size", String.valueOf(request.display().width()),
                String.valueOf(request.display().height()), String.valueOf(request.display().dpi())));
        out.add(new Instruction("audio", request.audioMimetypes()));
        out.add(new Instruction("video", request.videoMimetypes()));
        out.add(new Instruction("image", request.imageMimetypes()));
        if (version.sendsTimezone() && request.timezone() != null) {
            out.add(Instruction.of("timezone", request.timezone()));
        }
        if (version.sendsName() && request.userName() != null) {
            out.add(Instruction.of("name", request.userName()));
        }
        out.add(new Instruction("connect", values));

        StringBuilder wire = new StringBuilder();
        for (Instruction instruction : out) {
            String encoded = instruction.encode();
            String tooBig = exceedsGuacdLimits(encoded);
            if (tooBig != null) {
                fail(GuacamoleStatus.CLIENT_BAD_REQUEST, "the '" + instruction.opcode()
                        + "' instruction would exceed what guacd accepts: " + tooBig);
                return false;
            }
            wire.append(encoded);
        }
        stage = Stage.AWAIT_READY;
        socket.write(wire.toString());
        armTimer("guacd sent no 'ready' after 'connect'");
        return true;
    }

    /** guacd drops a connection over its parser limits without a word, so check before sending. */
    private static String exceedsGuacdLimits(String encoded) {
        byte[] bytes = encoded.getBytes(StandardCharsets.UTF_8);
        try {
            new InstructionScanner(WireLimits.GUACD_INBOUND).scan(bytes, 0, bytes.length);
            return null;
        } catch (WireFormatException e) {
            return e.getMessage();
        }
    }

    private void failWithGuacdError(Instruction error) {
        String message = error.args().isEmpty() ? "" : error.arg(0);
        int status = GuacamoleStatus.UPSTREAM_ERROR.code();
        if (error.args().size() > 1) {
            try {
                status = Integer.parseInt(error.arg(1));
            } catch (NumberFormatException ignored) {
                // keep UPSTREAM_ERROR: guacd's code was not a number
            }
        }
        fail(status, "guacd refused the connection: " + message + " (status " + status + ")");
    }

    private void armTimer(String onTimeout) {
        cancelTimer();
        timer = vertx.setTimer(stepTimeoutMs, id -> fail(GuacamoleStatus.UPSTREAM_TIMEOUT,
                onTimeout + " within " + stepTimeoutMs + " ms"));
    }

    private void cancelTimer() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private void fail(GuacamoleStatus status, String message) {
        fail(status.code(), message);
    }

    private void fail(int status, String message) {
        if (result.future().isComplete()) {
            return;
        }
        cancelTimer();
        stage = Stage.DONE;
        result.fail(new GuacdException(status, message));
        socket.handler(null);
        socket.closeHandler(null);
        socket.exceptionHandler(null);
        socket.close();
    }
}
