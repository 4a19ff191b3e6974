package org.farmgate.testkit.guacd;

import java.util.ArrayList;
import java.util.List;
import org.farmgate.model.Protocol;
import org.farmgate.protocol.Instruction;

/** The instructions a real guacd 1.6.0 sends right after {@code ready}, per protocol (see the guacd transcripts). */
final class FirstScreen {

    /** A 1x1 PNG: the shape of guacd's first blobs, small enough not to matter. */
    static final String TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    private FirstScreen() {
    }

    static List<Instruction> of(Protocol protocol, int width, int height, long timestamp, byte[] screen) {
        String w = String.valueOf(width);
        String h = String.valueOf(height);
        List<Instruction> out = new ArrayList<>();
        switch (protocol) {
            case SSH -> {
                out.add(Instruction.of("size", "1", "0", "0"));
                out.add(Instruction.of("move", "2", "1", "0", "0", "0"));
                out.add(Instruction.of("move", "1", "0", "7", "7", "0"));
                out.add(Instruction.of("size", "0", w, h));
                out.add(Instruction.of("rect", "0", "0", "0", w, h));
                out.add(Instruction.of("cfill", "14", "0", "0", "0", "0", "255"));
                out.add(Instruction.of("size", "1", String.valueOf(width - 34), String.valueOf(height - 27)));
                out.add(Instruction.of("size", "2", String.valueOf(width - 34), String.valueOf(height - 27)));
                out.add(Instruction.of("size", "-1", "1", "1"));
                out.add(Instruction.of("img", "1", "12", "-1", "image/png", "0", "0"));
                out.add(Instruction.of("blob", "1", TINY_PNG));
                out.add(Instruction.of("end", "1"));
                argv(out, "color-scheme", null);
                argv(out, "font-name", "bW9ub3NwYWNl");
                argv(out, "font-size", "MTI=");
                out.add(Instruction.of("cursor", "0", "0", "-1", "0", "0", "1", "1"));
            }
            case VNC -> {
                out.add(Instruction.of("size", "-2", "11", "16"));
                out.add(Instruction.of("size", "0", w, h));
                out.add(Instruction.of("rect", "-2", "0", "0", "11", "16"));
                out.add(Instruction.of("cfill", "2", "-2", "0", "0", "0", "255"));
                out.add(Instruction.of("img", "1", "14", "-2", "image/png", "0", "0"));
                out.add(Instruction.of("blob", "1", TINY_PNG));
                out.add(Instruction.of("end", "1"));
                out.add(Instruction.of("cursor", "0", "0", "-2", "0", "0", "11", "16"));
            }
            case RDP -> {
                out.add(Instruction.of("cursor", "0", "0", "-1", "0", "0", "1", "1"));
                out.add(Instruction.of("mouse", "0", "0"));
                out.add(Instruction.of("size", "0", w, h));
            }
        }
        if (screen != null) {
            picture(out, screen);
        }
        out.add(Instruction.of("sync", String.valueOf(timestamp), "0"));
        return out;
    }

    /** A PNG on layer 0 at its corner, as guacd streams one: blobs of at most 6048 base64 characters. */
    private static void picture(List<Instruction> out, byte[] png) {
        String data = java.util.Base64.getEncoder().encodeToString(png);
        out.add(Instruction.of("img", "3", "14", "0", "image/png", "0", "0"));
        for (int i = 0; i < data.length(); i += 6048) {
            out.add(Instruction.of("blob", "3", data.substring(i, Math.min(data.length(), i + 6048))));
        }
        out.add(Instruction.of("end", "3"));
    }

    private static void argv(List<Instruction> out, String name, String base64Value) {
        out.add(Instruction.of("argv", "1", "text/plain", name));
        if (base64Value != null) {
            out.add(Instruction.of("blob", "1", base64Value));
        }
        out.add(Instruction.of("end", "1"));
    }
}
