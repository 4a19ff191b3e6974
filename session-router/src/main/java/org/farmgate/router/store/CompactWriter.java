package org.farmgate.router.store;

import static org.farmgate.router.store.CompactForm.BYTES;
import static org.farmgate.router.store.CompactForm.DEEPEST;
import static org.farmgate.router.store.CompactForm.DOUBLE;
import static org.farmgate.router.store.CompactForm.DURATION;
import static org.farmgate.router.store.CompactForm.ENUM;
import static org.farmgate.router.store.CompactForm.FALSE;
import static org.farmgate.router.store.CompactForm.INSTANT;
import static org.farmgate.router.store.CompactForm.INT;
import static org.farmgate.router.store.CompactForm.LIST;
import static org.farmgate.router.store.CompactForm.LONG;
import static org.farmgate.router.store.CompactForm.MAP;
import static org.farmgate.router.store.CompactForm.NULL;
import static org.farmgate.router.store.CompactForm.RECORD;
import static org.farmgate.router.store.CompactForm.REMEMBERED_STRING;
import static org.farmgate.router.store.CompactForm.SET;
import static org.farmgate.router.store.CompactForm.SORTED_MAP;
import static org.farmgate.router.store.CompactForm.SORTED_SET;
import static org.farmgate.router.store.CompactForm.STRING;
import static org.farmgate.router.store.CompactForm.STRING_AGAIN;
import static org.farmgate.router.store.CompactForm.TRUE;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Writes one value in the compact form ({@link CompactForm}); throws {@link Unwritable} at the first thing the form
 * does not carry, which {@link CompactForm#write} turns into null.
 */
final class CompactWriter {

    private byte[] bytes = new byte[256];
    private int size;
    private final Map<Class<?>, Integer> classes = new IdentityHashMap<>();
    private Map<String, Integer> strings;

    void value(Object value, int depth) {
        if (depth > DEEPEST) {
            throw Unwritable.INSTANCE;
        }
        if (value == null) {
            out(NULL);
        } else if (value instanceof String text) {
            text(text);
        } else if (value instanceof Boolean flag) {
            out(flag ? TRUE : FALSE);
        } else if (value instanceof Integer number) {
            out(INT);
            signed(number);
        } else if (value instanceof Long number) {
            out(LONG);
            signed(number);
        } else if (value instanceof Double number) {
            out(DOUBLE);
            fixed(Double.doubleToRawLongBits(number));
        } else if (value instanceof Instant instant) {
            out(INSTANT);
            signed(instant.getEpochSecond());
            unsigned(instant.getNano());
        } else if (value instanceof Duration duration) {
            out(DURATION);
            signed(duration.getSeconds());
            unsigned(duration.getNano());
        } else if (value instanceof byte[] raw) {
            out(BYTES);
            unsigned(raw.length);
            out(raw);
        } else if (value instanceof Enum<?> constant) {
            out(ENUM);
            type(constant.getDeclaringClass(), null);
            string(constant.name());
        } else if (value instanceof Record record) {
            record(record, depth);
        } else if (!CompactShape.plain(value.getClass())) {
            throw Unwritable.INSTANCE;
        } else if (value instanceof List<?> list) {
            elements(LIST, list, depth);
        } else if (value instanceof Set<?> set) {
            if (set instanceof SortedSet<?> sorted && sorted.comparator() != null) {
                throw Unwritable.INSTANCE;
            }
            elements(set instanceof SortedSet<?> ? SORTED_SET : SET, set, depth);
        } else if (value instanceof Map<?, ?> map) {
            map(map, depth);
        } else {
            throw Unwritable.INSTANCE;
        }
    }

    private void text(String text) {
        if (text.length() >= REMEMBERED_STRING) {
            if (strings == null) {
                strings = new HashMap<>();
            }
            Integer known = strings.putIfAbsent(text, strings.size());
            if (known != null) {
                out(STRING_AGAIN);
                unsigned(known);
                return;
            }
        }
        out(STRING);
        string(text);
    }

    private void record(Record record, int depth) {
        CompactShape shape = CompactShape.of(record.getClass());
        if (!shape.writable() || shape.names() == null) {
            throw Unwritable.INSTANCE;
        }
        out(RECORD);
        type(shape.type(), shape.names());
        for (Field field : shape.fields()) {
            try {
                value(field.get(record), depth + 1);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("a record's field cannot be read: " + field, e);
            }
        }
    }

    private void elements(int tag, Collection<?> values, int depth) {
        out(tag);
        unsigned(values.size());
        int written = 0;
        for (Object each : values) {
            value(each, depth + 1);
            written++;
        }
        if (written != values.size()) {
            throw Unwritable.INSTANCE; // changed while written: not a value to seal
        }
    }

    private void map(Map<?, ?> map, int depth) {
        if (map instanceof SortedMap<?, ?> sorted && sorted.comparator() != null) {
            throw Unwritable.INSTANCE;
        }
        out(map instanceof SortedMap<?, ?> ? SORTED_MAP : MAP);
        unsigned(map.size());
        int written = 0;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            value(entry.getKey(), depth + 1);
            value(entry.getValue(), depth + 1);
            written++;
        }
        if (written != map.size()) {
            throw Unwritable.INSTANCE;
        }
    }

    /** A class's index in this value's table; the first time, its name and (a record's) components' names. */
    private void type(Class<?> type, String[] names) {
        Integer known = classes.get(type);
        if (known != null) {
            unsigned(known);
            return;
        }
        if (!CompactShape.of(type).writable()) {
            throw Unwritable.INSTANCE;
        }
        unsigned(classes.size());
        classes.put(type, classes.size());
        string(type.getName().substring(CompactShape.PROJECT.length()));
        if (names != null) {
            unsigned(names.length);
            for (String name : names) {
                string(name);
            }
        }
    }

    private void string(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (replaced(utf8) && hasLoneSurrogate(text)) {
            throw Unwritable.INSTANCE; // UTF-8 cannot carry it; Java serialization's modified UTF-8 can
        }
        unsigned(utf8.length);
        out(utf8);
    }

    /** Whether the encoder may have put its '?' for something: a lone surrogate is the only thing it replaces. */
    private static boolean replaced(byte[] utf8) {
        for (byte each : utf8) {
            if (each == '?') {
                return true;
            }
        }
        return false;
    }

    private static boolean hasLoneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private void signed(long value) {
        unsigned((value << 1) ^ (value >> 63));
    }

    private void unsigned(long value) {
        room(10);
        while ((value & ~0x7FL) != 0) {
            bytes[size++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        bytes[size++] = (byte) value;
    }

    private void fixed(long value) {
        room(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    void out(int value) {
        room(1);
        bytes[size++] = (byte) value;
    }

    private void out(byte[] raw) {
        room(raw.length);
        System.arraycopy(raw, 0, bytes, size, raw.length);
        size += raw.length;
    }

    private void room(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    byte[] written() {
        return Arrays.copyOf(bytes, size);
    }

    /** Thrown inside the writer only: unwinds to {@link CompactForm#write}, which answers null. */
    static final class Unwritable extends RuntimeException {
        static final Unwritable INSTANCE = new Unwritable();

        private Unwritable() {
            super(null, null, false, false);
        }
    }
}
