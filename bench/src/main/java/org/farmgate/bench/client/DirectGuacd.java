package org.farmgate.bench.client;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * A Guacamole client talking to guacd directly, without a gateway: the baseline every relay figure is compared
 * with. It runs the same handshake a gateway runs and hands over the socket after {@code ready}, paused.
 */
public final class DirectGuacd {

    /** The socket past {@code ready}, and what guacd sent after it in the same read. */
    public record Connected(NetSocket socket, Buffer rest) {
    }

    private static final long HANDSHAKE_MS = 20_000;

    private DirectGuacd() {
    }

    public static Future<Connected> connect(Vertx vertx, String host, int port, String protocol,
            Map<String, String> values) {
        return vertx.createNetClient(new NetClientOptions().setTcpNoDelay(true)).connect(port, host)
                .compose(socket -> handshake(vertx, socket, protocol, values));
    }

    /** Fails with what it saw when guacd closes, errs or does not say {@code ready} within 20 s. */
    private static Future<Connected> handshake(Vertx vertx, NetSocket socket, String protocol,
            Map<String, String> values) {
        Promise<Connected> done = Promise.promise();
        GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
        boolean[] ready = {false};
        String[] seen = {"nothing"};
        socket.closeHandler(ignored -> done.tryFail("guacd closed the connection before ready, after " + seen[0]));
        socket.exceptionHandler(error -> done.tryFail("the connection to guacd failed before ready, after "
                + seen[0] + ": " + error));
        long timer = vertx.setTimer(HANDSHAKE_MS, ignored -> done.tryFail("guacd said no ready within "
                + HANDSHAKE_MS + " ms, after " + seen[0]));
        done.future().onComplete(ignored -> vertx.cancelTimer(timer)).onFailure(ignored -> socket.close());
        socket.handler(chunk -> {
            byte[] bytes = chunk.getBytes();
            try {
                int stop = parser.feedUntil(bytes, 0, bytes.length, instruction -> {
                    seen[0] = instruction.opcode();
                    if (instruction.opcode().equals("args")) {
                        socket.write(connect(instruction.args(), values));
                    } else if (instruction.opcode().equals("ready")) {
                        ready[0] = true;
                        return false;
                    }
                    return true;
                });
                if (ready[0]) {
                    socket.pause();
                    socket.handler(null);
                    socket.closeHandler(null);
                    socket.exceptionHandler(null);
                    done.tryComplete(new Connected(socket, Buffer.buffer(bytes).getBuffer(stop, bytes.length)));
                }
            } catch (WireFormatException e) {
                done.tryFail(e);
                socket.close();
            }
        });
        socket.write(Instruction.of("select", protocol).encode());
        return done.future();
    }

    private static String connect(List<String> args, Map<String, String> values) {
        List<String> connect = new ArrayList<>();
        connect.add(args.get(0));
        args.subList(1, args.size()).forEach(name -> connect.add(values.getOrDefault(name, "")));
        return Instruction.of("size", "1024", "768", "96").encode() + Instruction.of("audio").encode()
                + Instruction.of("video").encode() + Instruction.of("image", "image/png").encode()
                + new Instruction("connect", connect).encode();
    }
}
