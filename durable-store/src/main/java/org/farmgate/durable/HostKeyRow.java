package org.farmgate.durable;

import java.time.Instant;

/**
 * A trusted SSH host key as kept: {@code how} it came to be trusted ({@code first-use} or {@code pinned}), by whom,
 * and the session whose creation trusted it on first use (null for a pin).
 */
public record HostKeyRow(String host, int port, String hostKey, String fingerprint, String how, String by,
        String sessionId, Instant at) {
}
