package org.farmgate.node.guacd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * The guacd handshake as a state machine without I/O: {@code select}, read {@code args}, answer with {@code size},
 * {@code audio}, {@code video}, {@code image}, {@code timezone}, {@code name} and {@code connect} (values placed by
 * argument name), then read {@code ready}. It is fed guacd's bytes in whatever pieces they arrive and says what to
 * send and where it stands; {@link Handshake} binds it to a socket and timers. Whatever guacd sends, it ends in
 * {@link State#READY} or {@link State#FAILED} with a Guacamole status, never in an exception (see its fuzz test).
 */
final class HandshakeProtocol {

    enum State {
        AWAIT_ARGS("waiting for 'args'"),
        AWAIT_READY("waiting for 'ready'"),
        READY("ready"),
        FAILED("failed");

        final String description;

        State(String description) {
            this.description = description;
        }
    }

    private final HandshakeRequest request;
    private final GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);

    private State state = State.AWAIT_ARGS;
    private ProtocolVersion version;
    private String connectionId;
    private int failureStatus;
    private String failure;
    private int restOffset;

    HandshakeProtocol(HandshakeRequest request) {
        this.request = request;
    }

    /** What opens the handshake. */
    String select() {
        return Instruction.of("select", request.selected()).encode();
    }

    /**
     * Reads a piece of guacd's answer, sending through {@code send} what the handshake answers.
     *
     * @return the state after it; once {@link State#READY}, {@link #restOffset()} says where in this piece the
     *     session's own bytes begin
     */
    State feed(byte[] bytes, int offset, int length, Consumer<String> send) {
        if (state == State.READY || state == State.FAILED) {
            return state;
        }
        try {
            restOffset = parser.feedUntil(bytes, offset, length, instruction -> onInstruction(instruction, send));
        } catch (WireFormatException e) {
            fail(GuacamoleStatus.UPSTREAM_ERROR.code(), "guacd sent malformed data while " + state.description
                    + ": " + e.getMessage());
        }
        return state;
    }

    State state() {
        return state;
    }

    int restOffset() {
        return restOffset;
    }

    String connectionId() {
        return connectionId;
    }

    String version() {
        return version.name();
    }

    int failureStatus() {
        return failureStatus;
    }

    String failure() {
        return failure;
    }

    /** Fails the handshake from outside (a timeout, a closed socket); no-op once it ended. */
    void fail(int status, String message) {
        if (state == State.READY || state == State.FAILED) {
            return;
        }
        state = State.FAILED;
        failureStatus = status;
        failure = message;
    }

    private boolean onInstruction(Instruction instruction, Consumer<String> send) {
        if (instruction.opcode().equals("error")) {
            failWithGuacdError(instruction);
            return false;
        }
        switch (state) {
            case AWAIT_ARGS -> {
                if (!instruction.opcode().equals("args")) {
                    fail(GuacamoleStatus.UPSTREAM_ERROR.code(), "guacd answered 'select' with '"
                            + instruction.opcode() + "' instead of 'args'");
                    return false;
                }
                return sendConnect(instruction.args(), send);
            }
            case AWAIT_READY -> {
                if (!instruction.opcode().equals("ready")) {
                    fail(GuacamoleStatus.UPSTREAM_ERROR.code(), "guacd answered 'connect' with '"
                            + instruction.opcode() + "' instead of 'ready'");
                    return false;
                }
                if (instruction.args().isEmpty() || instruction.arg(0).isEmpty()) {
                    // guacd 1.6.0 always names the connection ($ and a UUID); without it nobody can join or trace it.
                    fail(GuacamoleStatus.UPSTREAM_ERROR.code(), "guacd's 'ready' carries no connection id");
                    return false;
                }
                connectionId = instruction.arg(0);
                state = State.READY;
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    private boolean sendConnect(List<String> args, Consumer<String> send) {
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
                fail(GuacamoleStatus.CLIENT_BAD_REQUEST.code(), "the '" + instruction.opcode()
                        + "' instruction would exceed what guacd accepts: " + tooBig);
                return false;
            }
            wire.append(encoded);
        }
        state = State.AWAIT_READY;
        send.accept(wire.toString());
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
}
