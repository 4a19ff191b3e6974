package org.farmgate.router.addressbook;

import java.util.regex.Pattern;

/**
 * rustguac's rules for folder and entry names, which keep every name a single, harmless path segment: 1-64
 * characters of letters, digits, '.', '_' and '-', never "." or "..", and never ".config" (a folder's settings).
 * Folder paths are such segments joined by '/', at most 256 characters.
 */
public final class Names {

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private Names() {
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static String checkName(String what, String name) {
        if (name == null || !SEGMENT.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be 1-64 characters of letters, digits, '.', '_' and '-'");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException(what + " may not be '.' or '..'");
        }
        if (name.equals(".config")) {
            throw new IllegalArgumentException(what + " may not be '.config', the name of a folder's settings");
        }
        return name;
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static String checkPath(String path) {
        if (path == null || path.isEmpty() || path.length() > 256) {
            throw new IllegalArgumentException("folder path must be 1-256 characters");
        }
        for (String segment : path.split("/", -1)) {
            checkName("each folder name in the path", segment);
        }
        return path;
    }

    public static String checkScope(String scope) {
        if (!"shared".equals(scope)) {
            throw new IllegalArgumentException("scope must be 'shared'");
        }
        return scope;
    }
}
