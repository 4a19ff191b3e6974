package org.farmgate.protocol;

import java.util.List;

/**
 * The connection arguments guacd 1.6.0 lists in its {@code args} reply, per protocol, in guacd's order (captured from
 * a real guacd 1.6.0; see docs/GUACD.md). The live list always comes from guacd at handshake time;
 * these copies serve validation of protocol options before a session exists, and the synthetic guacd.
 */
public final class GuacdArguments {

    /** The protocol version guacd 1.5 and 1.6 offer as the first element of {@code args}. */
    public static final String VERSION_1_5_0 = "VERSION_1_5_0";

    public static final List<String> SSH = List.of(
            "hostname", "host-key", "port", "timeout", "username", "password", "font-name", "font-size",
            "enable-sftp", "sftp-root-directory", "sftp-disable-download", "sftp-disable-upload", "private-key",
            "passphrase", "public-key", "color-scheme", "command", "typescript-path", "typescript-name",
            "create-typescript-path", "typescript-write-existing", "recording-path", "recording-name",
            "recording-exclude-output", "recording-exclude-mouse", "recording-include-keys", "create-recording-path",
            "recording-write-existing", "read-only", "server-alive-interval", "backspace", "terminal-type",
            "scrollback", "locale", "timezone", "disable-copy", "disable-paste", "wol-send-packet", "wol-mac-addr",
            "wol-broadcast-addr", "wol-udp-port", "wol-wait-time");

    public static final List<String> VNC = List.of(
            "hostname", "port", "read-only", "disable-display-resize", "encodings", "username", "password",
            "swap-red-blue", "color-depth", "cursor", "autoretry", "clipboard-encoding", "dest-host", "dest-port",
            "enable-audio", "audio-servername", "reverse-connect", "listen-timeout", "enable-sftp", "sftp-hostname",
            "sftp-host-key", "sftp-port", "sftp-timeout", "sftp-username", "sftp-password", "sftp-private-key",
            "sftp-passphrase", "sftp-public-key", "sftp-directory", "sftp-root-directory",
            "sftp-server-alive-interval", "sftp-disable-download", "sftp-disable-upload", "recording-path",
            "recording-name", "recording-exclude-output", "recording-exclude-mouse", "recording-include-keys",
            "create-recording-path", "recording-write-existing", "disable-copy", "disable-paste",
            "disable-server-input", "wol-send-packet", "wol-mac-addr", "wol-broadcast-addr", "wol-udp-port",
            "wol-wait-time", "force-lossless", "compress-level", "quality-level");

    public static final List<String> RDP = List.of(
            "hostname", "port", "timeout", "domain", "username", "password", "width", "height", "dpi",
            "initial-program", "color-depth", "disable-audio", "enable-printing", "printer-name", "enable-drive",
            "drive-name", "drive-path", "create-drive-path", "disable-download", "disable-upload", "console",
            "console-audio", "server-layout", "security", "ignore-cert", "cert-tofu", "cert-fingerprints",
            "disable-auth", "remote-app", "remote-app-dir", "remote-app-args", "static-channels", "client-name",
            "enable-wallpaper", "enable-theming", "enable-font-smoothing", "enable-full-window-drag",
            "enable-desktop-composition", "enable-menu-animations", "disable-bitmap-caching",
            "disable-offscreen-caching", "disable-glyph-caching", "disable-gfx", "preconnection-id",
            "preconnection-blob", "timezone", "enable-sftp", "sftp-hostname", "sftp-host-key", "sftp-port",
            "sftp-timeout", "sftp-username", "sftp-password", "sftp-private-key", "sftp-passphrase",
            "sftp-public-key", "sftp-directory", "sftp-root-directory", "sftp-server-alive-interval",
            "sftp-disable-download", "sftp-disable-upload", "recording-path", "recording-name",
            "recording-exclude-output", "recording-exclude-mouse", "recording-exclude-touch",
            "recording-include-keys", "create-recording-path", "recording-write-existing", "resize-method",
            "enable-audio-input", "enable-touch", "read-only", "gateway-hostname", "gateway-port", "gateway-domain",
            "gateway-username", "gateway-password", "load-balance-info", "disable-copy", "disable-paste",
            "wol-send-packet", "wol-mac-addr", "wol-broadcast-addr", "wol-udp-port", "wol-wait-time",
            "force-lossless", "normalize-clipboard");

    private GuacdArguments() {
    }
}
