package org.farmgate.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} pairs; a flag without a value is "true". */
public final class Args {

    private Args() {
    }

    public static Map<String, String> parse(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name, got '" + args[i] + "'");
            }
            String name = args[i].substring(2);
            if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                out.put(name, args[++i]);
            } else {
                out.put(name, "true");
            }
        }
        return out;
    }
}
