package org.farmgate.node.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Configuration values by name, from the environment over an optional file of {@code NAME=value} lines that uses
 * the same names. Typed getters fail with a message naming the key and the bad value.
 */
public final class ConfigSource {

    /** The variable that names the configuration file. */
    public static final String CONFIG_FILE = "GW_CONFIG_FILE";

    private final Map<String, String> values;

    public ConfigSource(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** The environment wins over the file; a missing file named explicitly is an error. */
    public static ConfigSource load(Map<String, String> environment, Path file) {
        Map<String, String> merged = new HashMap<>();
        if (file != null) {
            merged.putAll(readFile(file));
        }
        environment.forEach((key, value) -> {
            if (key.startsWith("GW_") || key.startsWith("VAULT_")) {
                merged.put(key, value);
            }
        });
        return new ConfigSource(merged);
    }

    private static Map<String, String> readFile(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        Map<String, String> out = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> out.put(name.trim(), properties.getProperty(name).trim()));
        return out;
    }

    public String string(String key, String fallback) {
        String value = values.get(key);
        return value == null || value.isBlank() ? fallback : value.trim();
    }

    public int integer(String key, int fallback, int min, int max) {
        String raw = string(key, null);
        if (raw == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(raw);
            if (value < min || value > max) {
                throw new ConfigException(key + " must be between " + min + " and " + max + ", got " + raw);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a whole number, got '" + raw + "'");
        }
    }

    public boolean bool(String key, boolean fallback) {
        String raw = string(key, null);
        if (raw == null) {
            return fallback;
        }
        return switch (raw.toLowerCase()) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new ConfigException(key + " must be true or false, got '" + raw + "'");
        };
    }

    /** A comma-separated list, blanks dropped; the fallback when unset. */
    public List<String> list(String key, List<String> fallback) {
        String raw = string(key, null);
        if (raw == null) {
            return fallback;
        }
        List<String> out = new ArrayList<>();
        for (String part : raw.split(",")) {
            if (!part.isBlank()) {
                out.add(part.trim());
            }
        }
        return List.copyOf(out);
    }

    public boolean isSet(String key) {
        return string(key, null) != null;
    }
}
