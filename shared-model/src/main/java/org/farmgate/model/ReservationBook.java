package org.farmgate.model;

import java.io.Serializable;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * A node's reservations with their totals. The totals are kept beside the entries so that a summary (without the
 * entries) still says everything placement needs, at a fraction of the size.
 *
 * @param pendingMb reserved for sessions whose guacd connection does not exist yet, and so not yet visible in the
 *     host's available memory
 */
public record ReservationBook(Map<String, Reservation> entries, long reservedMb, long pendingMb,
        Map<Protocol, Integer> sessions, Map<Protocol, Long> reservedByProtocolMb) implements Serializable {

    public static final ReservationBook EMPTY = new ReservationBook(Map.of(), 0, 0, Map.of(), Map.of());

    public ReservationBook {
        entries = Map.copyOf(entries);
        sessions = Map.copyOf(sessions);
        reservedByProtocolMb = Map.copyOf(reservedByProtocolMb);
    }

    public static ReservationBook of(java.util.Collection<Reservation> reservations) {
        Map<String, Reservation> entries = new HashMap<>();
        reservations.forEach(reservation -> entries.put(reservation.sessionId(), reservation));
        return rebuilt(entries);
    }

    /** A loop, not a stream: placement asks it of every node it judges. */
    public int sessionCount() {
        int count = 0;
        for (int each : sessions.values()) {
            count += each;
        }
        return count;
    }

    public int sessions(Protocol protocol) {
        return sessions.getOrDefault(protocol, 0);
    }

    public ReservationBook with(Reservation reservation) {
        if (entries.containsKey(reservation.sessionId())) {
            return this;
        }
        Map<String, Reservation> next = new HashMap<>(entries);
        next.put(reservation.sessionId(), reservation);
        return rebuilt(next);
    }

    public ReservationBook without(String sessionId) {
        if (!entries.containsKey(sessionId)) {
            return this;
        }
        Map<String, Reservation> next = new HashMap<>(entries);
        next.remove(sessionId);
        return rebuilt(next);
    }

    /**
     * This book reconciled with what the node itself holds: the node's own sessions are the truth (added when
     * missing, their active flag taken from the node); a reservation the node does not hold is kept (a router
     * reserved, the session is on its way to the node) unless the node names it in {@code expired}: the node has
     * seen it in its entry, unheld, for longer than any session takes to arrive, judged by the node's own clock (a
     * router that died between reserving and opening leaks nothing, and no two hosts' clocks are compared).
     */
    public ReservationBook reconciledWith(ReservationBook local, java.util.Set<String> expired) {
        Map<String, Reservation> next = new HashMap<>(local.entries());
        for (Reservation reservation : entries.values()) {
            if (!next.containsKey(reservation.sessionId()) && !expired.contains(reservation.sessionId())) {
                next.put(reservation.sessionId(), reservation);
            }
        }
        return next.equals(entries) ? this : rebuilt(next);
    }

    /** The totals without the entries: what every node keeps of every other. */
    public ReservationBook summary() {
        return new ReservationBook(Map.of(), reservedMb, pendingMb, sessions, reservedByProtocolMb);
    }

    private static ReservationBook rebuilt(Map<String, Reservation> entries) {
        long reserved = 0;
        long pending = 0;
        Map<Protocol, Integer> sessions = new EnumMap<>(Protocol.class);
        Map<Protocol, Long> byProtocol = new EnumMap<>(Protocol.class);
        for (Reservation reservation : entries.values()) {
            reserved += reservation.memoryMb();
            if (!reservation.active()) {
                pending += reservation.memoryMb();
            }
            sessions.merge(reservation.protocol(), 1, Integer::sum);
            byProtocol.merge(reservation.protocol(), (long) reservation.memoryMb(), Long::sum);
        }
        return new ReservationBook(entries, reserved, pending, sessions, byProtocol);
    }
}
