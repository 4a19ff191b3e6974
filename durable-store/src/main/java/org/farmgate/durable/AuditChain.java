package org.farmgate.durable;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The audit log's chain: every row's hash covers its place, every field and the hash of the row before, so that a
 * row edited, removed or inserted by hand breaks the chain at that row and every later one. Each field is written
 * with its length, so that no two different rows hash alike by moving text from one field to the next.
 *
 * <p>What it does not stop: someone with write access to the database who recomputes every hash after the row
 * they edited. Against that, the head's hash ({@code GET /api/audit/verify}) is worth copying somewhere else now and
 * then; docs/DECISIONS.md says why there is no key in the chain.
 */
public final class AuditChain {

    /** The hash before the first row. */
    public static final String GENESIS = "0".repeat(64);

    private AuditChain() {
    }

    public static String hash(long seq, AuditEvent event, String prevHash) {
        MessageDigest digest = sha256();
        field(digest, Long.toString(seq));
        field(digest, event.eventId());
        field(digest, Long.toString(event.at().getEpochSecond()) + "." + event.at().getNano());
        field(digest, event.action());
        field(digest, event.outcome());
        field(digest, event.actorId());
        field(digest, event.actorName());
        field(digest, event.actorRole());
        field(digest, event.clientAddress());
        field(digest, event.target());
        field(digest, event.detail());
        field(digest, event.nodeId());
        field(digest, prevHash);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void field(MessageDigest digest, String value) {
        if (value == null) {
            digest.update((byte) 0);
            return;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        digest.update((byte) 1);
        digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
        digest.update((byte) ':');
        digest.update(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
