package org.farmgate.protocol;

/**
 * Hard bounds on what a parser accepts, so that a peer can never make us buffer without limit.
 *
 * <p>An element longer than {@code maxElementLength} code points is refused as soon as its length prefix is read,
 * before any of its content arrives; so is one that could not fit in {@code maxInstructionBytes}, since every code
 * point takes at least one byte.
 *
 * @param maxElementLength the most code points one element may declare
 * @param maxInstructionBytes the most bytes one instruction may take on the wire, terminator included
 * @param maxElements the most elements (opcode included) one instruction may have
 */
public record WireLimits(int maxElementLength, int maxInstructionBytes, int maxElements) {

    /**
     * What guacd 1.6.0 itself accepts from a client (libguac: {@code GUAC_INSTRUCTION_MAX_LENGTH} 8192 per element,
     * a 32768-byte instruction buffer, {@code GUAC_INSTRUCTION_MAX_ELEMENTS} 128). Beyond these guacd sends
     * {@code disconnect} without an error, so instructions meant for guacd must be checked against them first.
     */
    public static final WireLimits GUACD_INBOUND = new WireLimits(8192, 32768, 128);

    /**
     * Bounds for what guacd sends: its blobs are at most 6048 bytes of base64 ({@code GUAC_PROTOCOL_BLOB_MAX_LENGTH}),
     * but {@code argv}, {@code name} and error texts are free, so leave room while still bounding memory.
     */
    public static final WireLimits FROM_GUACD = new WireLimits(65536, 256 * 1024, 256);

    public WireLimits {
        if (maxElementLength < 1) {
            throw new IllegalArgumentException("maxElementLength must be positive, got " + maxElementLength);
        }
        if (maxInstructionBytes < 4) {
            throw new IllegalArgumentException("maxInstructionBytes must be at least 4, got " + maxInstructionBytes);
        }
        if (maxElements < 1) {
            throw new IllegalArgumentException("maxElements must be at least 1, got " + maxElements);
        }
    }
}
