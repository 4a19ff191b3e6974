package org.farmgate.node.guacd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.fuzz.Splits;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Whatever a guacd (or something posing as one) answers, in whatever pieces: the handshake ends ready or failed
 * with a Guacamole status, never with an exception; the same answer in other pieces ends the same way; what it sends
 * is within guacd's own parser limits and places one value per argument guacd named; ready means a connection id.
 */
class HandshakeFuzzTest {

    private static final HandshakeRequest REQUEST = new HandshakeRequest(Protocol.SSH,
            Map.of("hostname", "127.0.0.1", "port", "22", "username", "u", "password", "p"),
            new DisplaySize(1024, 768, 96), List.of(), List.of(), List.of("image/png"), "UTC", "fuzz");

    /** How a run of the handshake ended. */
    record Ending(HandshakeProtocol.State state, int status, String failure, String id, long restAt,
            List<String> sent) {
    }

    @FuzzTest(maxDuration = "10s")
    void endsReadyOrFailedTheSameWayInEverySplit(FuzzedDataProvider data) {
        Splits splits = Splits.from(data);
        Ending whole = run(List.of(splits.bytes()));
        Ending cut = run(splits.pieces());
        assertEquals(whole.state(), cut.state(), "the pieces changed how the handshake ended");
        assertEquals(whole.failure(), cut.failure());
        assertEquals(whole.id(), cut.id());
        assertEquals(whole.sent(), cut.sent());
        if (cut.state() == HandshakeProtocol.State.READY) {
            assertEquals(whole.restAt(), cut.restAt(), "the session's first bytes moved");
            assertFalse(cut.id().isEmpty());
        }
        if (cut.state() == HandshakeProtocol.State.FAILED) {
            assertNotNull(cut.failure());
        }
        assertTrue(cut.sent().size() <= 1, "connect is sent once");
        for (String wire : cut.sent()) {
            List<Instruction> sent;
            try {
                sent = new GuacamoleParser(WireLimits.GUACD_INBOUND).feed(wire.getBytes(StandardCharsets.UTF_8));
            } catch (WireFormatException e) {
                throw new AssertionError("sent guacd what its parser refuses: " + e.getMessage());
            }
            Instruction connect = sent.get(sent.size() - 1);
            assertEquals("connect", connect.opcode());
            Instruction args = firstInstruction(splits.bytes());
            assertEquals("args", args.opcode());
            assertEquals(args.args().size(), connect.args().size(), "one value per argument guacd named");
        }
    }

    private static Instruction firstInstruction(byte[] bytes) {
        List<Instruction> first = new ArrayList<>();
        try {
            new GuacamoleParser(WireLimits.FROM_GUACD).feedUntil(bytes, 0, bytes.length, instruction -> !first.add(instruction));
        } catch (WireFormatException e) {
            throw new AssertionError("connect was sent after malformed data", e);
        }
        return first.get(0);
    }

    private static Ending run(List<byte[]> pieces) {
        HandshakeProtocol protocol = new HandshakeProtocol(REQUEST);
        List<String> sent = new ArrayList<>();
        HandshakeProtocol.State state = protocol.state();
        long offset = 0;
        long restAt = -1;
        for (byte[] piece : pieces) {
            state = protocol.feed(piece, 0, piece.length, sent::add);
            if (state == HandshakeProtocol.State.READY) {
                restAt = offset + protocol.restOffset();
                break;
            }
            if (state == HandshakeProtocol.State.FAILED) {
                break;
            }
            offset += piece.length;
        }
        return new Ending(state, protocol.failureStatus(), protocol.failure(), protocol.connectionId(), restAt, sent);
    }
}
