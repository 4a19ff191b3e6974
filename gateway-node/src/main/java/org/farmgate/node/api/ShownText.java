package org.farmgate.node.api;

import org.farmgate.error.InvalidRequestException;

/**
 * Text one person writes and others are shown (a watcher's name, an entry's display name, a folder's description):
 * no control characters, and no format characters, the bidirectional controls such as U+202E among them, which
 * would let a name show another name than the one it holds ("evil", U+202E, "nimda" reads as "eviladmin") or
 * hide a part of itself (zero-width characters). Line and paragraph separators and unassigned code points go too.
 */
public final class ShownText {

    private ShownText() {
    }

    /** {@code text} if every character is one a person can see; a 400 naming {@code field} otherwise. */
    public static String check(String field, String text) {
        text.codePoints().filter(ShownText::hidden).findFirst().ifPresent(hidden -> {
            throw new InvalidRequestException(String.format("field '%s' must not contain U+%04X: control, format "
                    + "and direction characters are refused in what others are shown", field, hidden));
        });
        return text;
    }

    private static boolean hidden(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                    Character.SURROGATE, Character.UNASSIGNED, Character.PRIVATE_USE -> true;
            default -> false;
        };
    }
}
