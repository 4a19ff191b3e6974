package org.farmgate.bench.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a host's TCP sockets sent, from the kernel's own counters ({@code ss -tin}): bytes and data segments per
 * socket, summed by the channel a socket belongs to (named by one of its ports). A socket is known by its two ends,
 * so that two readings can be subtracted; one that closed between them takes its counts with it, which is why this
 * is for long-lived connections such as a cluster's.
 */
public final class SocketCounters {

    /** What one socket, or a channel's sockets together, sent so far. */
    public record Sent(long bytes, long segments) {

        static final Sent NONE = new Sent(0, 0);

        Sent plus(Sent other) {
            return new Sent(bytes + other.bytes, segments + other.segments);
        }

        Sent minus(Sent other) {
            return new Sent(bytes - other.bytes, segments - other.segments);
        }
    }

    private static final Pattern BYTES_SENT = Pattern.compile("\\bbytes_sent:(\\d+)");
    private static final Pattern DATA_SEGMENTS = Pattern.compile("\\bdata_segs_out:(\\d+)");

    private final Map<String, Sent> bySocket;
    private final Map<String, String> channelOf;

    private SocketCounters(Map<String, Sent> bySocket, Map<String, String> channelOf) {
        this.bySocket = bySocket;
        this.channelOf = channelOf;
    }

    /**
     * Reads the sockets of the process's network namespace ({@code wrapper} runs {@code ss} elsewhere, as
     * {@link NetnsLab#on} does), keeping those with a port of {@code channels} (port → the channel's name).
     */
    public static SocketCounters read(List<String> wrapper, Map<Integer, String> channels) throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(List.of("ss", "-tinH"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + ": " + output.trim());
            }
            return parse(output, channels);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /**
     * {@code ss -tinH}'s output: a line per socket ({@code State Recv-Q Send-Q Local:Port Peer:Port}), then its
     * counters on a line that starts with white space.
     */
    static SocketCounters parse(String output, Map<Integer, String> channels) {
        Map<String, Sent> bySocket = new HashMap<>();
        Map<String, String> channelOf = new HashMap<>();
        String socket = null;
        for (String line : output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (!Character.isWhitespace(line.charAt(0))) {
                String[] fields = line.trim().split("\\s+");
                socket = null;
                if (fields.length >= 5) {
                    String channel = channel(fields[3], fields[4], channels);
                    if (channel != null) {
                        socket = fields[3] + " " + fields[4];
                        channelOf.put(socket, channel);
                    }
                }
            } else if (socket != null) {
                bySocket.put(socket, new Sent(number(BYTES_SENT, line), number(DATA_SEGMENTS, line)));
                socket = null;
            }
        }
        return new SocketCounters(bySocket, channelOf);
    }

    private static String channel(String local, String peer, Map<Integer, String> channels) {
        String byLocal = channels.get(port(local));
        return byLocal != null ? byLocal : channels.get(port(peer));
    }

    private static int port(String endpoint) {
        try {
            return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long number(Pattern pattern, String line) {
        Matcher m = pattern.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** What each channel's sockets sent since {@code earlier}: a socket new since then counts whole. */
    public Map<String, Sent> since(SocketCounters earlier) {
        Map<String, Sent> channels = new TreeMap<>();
        bySocket.forEach((socket, now) -> {
            Sent before = earlier.bySocket.getOrDefault(socket, Sent.NONE);
            channels.merge(channelOf.get(socket), now.minus(before), Sent::plus);
        });
        return channels;
    }
}
