package org.farmgate.testkit.guacd;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.farmgate.model.Protocol;
import org.farmgate.protocol.Instruction;

/**
 * How a {@link SyntheticGuacd} behaves, in the style of Vert.x's option classes. The defaults are a real guacd
 * 1.6.0's, as captured from a real guacd (docs/GUACD.md); tests shorten the times, benchmarks turn up the stream.
 */
public final class SyntheticGuacdOptions {

    private Set<Protocol> installed = EnumSet.allOf(Protocol.class);
    private Duration readyDelay = Duration.ofMillis(10);
    private Duration idleTimeout = Duration.ofSeconds(15);
    private Duration handshakeTimeout = Duration.ofSeconds(15);
    private Duration authFailureDelay = Duration.ofSeconds(4);
    private String wrongPassword = "wrong";
    private Set<Integer> closedPorts = Set.of(1, 9);
    private Duration frameInterval = Duration.ZERO;
    private int frameBytes;
    private boolean flood;
    private Duration clockStep = Duration.ZERO;
    private int memoryPerConnectionMb;
    private int writeChunkBytes;
    private List<Instruction> afterReady = List.of();
    private boolean echoKeys;
    private IntFunction<String> sshHostKeys = port -> null;
    private byte[] screen;

    /** Protocols whose {@code select} is answered; others get no answer at all, as in guacd. */
    public Set<Protocol> installed() {
        return installed;
    }

    public SyntheticGuacdOptions installed(Set<Protocol> value) {
        installed = Set.copyOf(value);
        return this;
    }

    /** Time between {@code connect} and {@code ready} (5-50 ms for SSH and VNC on loopback). */
    public Duration readyDelay() {
        return readyDelay;
    }

    public SyntheticGuacdOptions readyDelay(Duration value) {
        readyDelay = value;
        return this;
    }

    /** Silence after which guacd drops a user ({@code error,...,776;} then {@code disconnect;}). */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    public SyntheticGuacdOptions idleTimeout(Duration value) {
        idleTimeout = value;
        return this;
    }

    /** Time after {@code ready} until a wrong SSH password is reported (about 4 s). */
    public Duration authFailureDelay() {
        return authFailureDelay;
    }

    public SyntheticGuacdOptions authFailureDelay(Duration value) {
        authFailureDelay = value;
        return this;
    }

    /** The password the synthetic targets refuse. */
    public String wrongPassword() {
        return wrongPassword;
    }

    /** Target ports where nothing listens. */
    public Set<Integer> closedPorts() {
        return closedPorts;
    }

    /** Time between frames of the screen stream; zero sends the first screen only. */
    public Duration frameInterval() {
        return frameInterval;
    }

    /** Base64 bytes of image data per frame, cut into blobs of at most 6048 as guacd does. */
    public int frameBytes() {
        return frameBytes;
    }

    /** Whether frames go out as fast as the connection takes them (back-pressure applies). */
    public boolean flood() {
        return flood;
    }

    /** A frame every {@code interval}, each {@code bytesPerFrame} bytes of image data. */
    public SyntheticGuacdOptions stream(Duration interval, int bytesPerFrame) {
        frameInterval = interval;
        frameBytes = bytesPerFrame;
        flood = false;
        return this;
    }

    /** Frames back to back, each {@code bytesPerFrame} bytes of image data, as fast as the reader takes them. */
    public SyntheticGuacdOptions flood(int bytesPerFrame) {
        frameInterval = Duration.ZERO;
        frameBytes = bytesPerFrame;
        flood = true;
        return this;
    }

    /** How far guacd's clock moves per frame; zero: it is the real monotonic clock. */
    public Duration clockStep() {
        return clockStep;
    }

    /**
     * A session played fast: each frame's {@code sync} is {@code step} after the one before, however soon it is sent
     * (a frame a second sent every millisecond makes two hours of session in seconds).
     */
    public SyntheticGuacdOptions clockStep(Duration step) {
        clockStep = step;
        return this;
    }

    /** Memory each connection holds while open, to emulate guacd's cost. */
    public int memoryPerConnectionMb() {
        return memoryPerConnectionMb;
    }

    public SyntheticGuacdOptions memoryPerConnectionMb(int value) {
        memoryPerConnectionMb = value;
        return this;
    }

    /** Every write cut into pieces of this many bytes (0 = whole), to exercise the reader's parser. */
    public int writeChunkBytes() {
        return writeChunkBytes;
    }

    public SyntheticGuacdOptions writeChunkBytes(int value) {
        writeChunkBytes = value;
        return this;
    }

    /** Extra instructions sent right after the first screen. */
    public List<Instruction> afterReady() {
        return afterReady;
    }

    public SyntheticGuacdOptions afterReady(List<Instruction> value) {
        afterReady = List.copyOf(value);
        return this;
    }

    /** Whether a key press is answered at once with a small frame, as a shell echoes what is typed over SSH. */
    public boolean echoKeys() {
        return echoKeys;
    }

    public SyntheticGuacdOptions echoKeys(boolean value) {
        echoKeys = value;
        return this;
    }

    /** Time after {@code args} within which the handshake must go on, else guacd's connection process exits. */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public SyntheticGuacdOptions handshakeTimeout(Duration value) {
        handshakeTimeout = value;
        return this;
    }

    /** The host key the SSH server at a port shows ({@code ssh-ed25519 AAAA...}), or null for none known. */
    public String sshHostKey(int port) {
        return sshHostKeys.apply(port);
    }

    /**
     * The SSH servers' host keys, read at each connection (a server may be reinstalled between two): a connection
     * whose {@code host-key} names another key for the server is refused as guacd 1.6 refuses it (libssh2's
     * known-hosts check: {@code [address]:port}, or the bare address for port 22; the user is told only "Aborted. See
     * logs.", 512).
     */
    public SyntheticGuacdOptions sshHostKeys(IntFunction<String> value) {
        sshHostKeys = value;
        return this;
    }

    /**
     * A picture (PNG) of the remote screen, sent on the default layer before the first {@code sync} to every user,
     * a joining one too, as guacd 1.6's {@code guac_display_dup} sends a joining user the whole screen.
     */
    public byte[] screen() {
        return screen;
    }

    public SyntheticGuacdOptions screen(byte[] png) {
        screen = png == null ? null : png.clone();
        return this;
    }
}
