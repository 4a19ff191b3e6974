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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads one value of the compact form ({@link CompactForm}): every class named is resolved through
 * {@link CompactShape#resolve}, every count checked against the bytes left, nesting bounded; anything else is
 * {@link CompactForm.Malformed}.
 */
final class CompactReader {

    private final byte[] in;
    private int at;
    private final List<Entry> table = new ArrayList<>(4);
    private final List<String> strings = new ArrayList<>();

    /** A class as the writer named it: this node's shape, and where each of the writer's components goes. */
    private record Entry(CompactShape shape, int[] places) {
    }

    CompactReader(byte[] in, int at) {
        this.in = in;
        this.at = at;
    }

    /** How many bytes are left after what was read. */
    int left() {
        return in.length - at;
    }

    Object value(int depth) {
        if (depth > DEEPEST) {
            throw new CompactForm.Malformed("nested deeper than " + DEEPEST);
        }
        int tag = take();
        return switch (tag) {
            case NULL -> null;
            case TRUE -> Boolean.TRUE;
            case FALSE -> Boolean.FALSE;
            case INT -> integer();
            case LONG -> signed();
            case DOUBLE -> Double.longBitsToDouble(fixed());
            case STRING -> text();
            case STRING_AGAIN -> again();
            case INSTANT -> Instant.ofEpochSecond(signed(), nanos());
            case DURATION -> Duration.ofSeconds(signed(), nanos());
            case BYTES -> bytes();
            case ENUM -> constant();
            case RECORD -> record(depth);
            case LIST -> fill(new ArrayList<>(), depth);
            case SET -> fill(new LinkedHashSet<>(), depth);
            case SORTED_SET -> fill(new TreeSet<>(), depth);
            case MAP -> entries(new LinkedHashMap<>(), depth);
            case SORTED_MAP -> entries(new TreeMap<>(), depth);
            default -> throw new CompactForm.Malformed("unknown tag " + tag + " at byte " + (at - 1));
        };
    }

    private Object record(int depth) {
        Entry entry = entry(true);
        CompactShape shape = entry.shape();
        Object[] arguments = shape.defaults().clone();
        for (int place : entry.places()) {
            Object value = value(depth + 1);
            if (place >= 0) {
                arguments[place] = fit(value, shape.types()[place], shape.generics()[place]);
            }
        }
        try {
            return shape.constructor().newInstance(arguments);
        } catch (InvocationTargetException e) {
            throw new CompactForm.Malformed(shape.type().getName() + " refused its components: " + e.getCause(), e);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw new CompactForm.Malformed(shape.type().getName() + ": components of another type", e);
        }
    }

    private Object constant() {
        Entry entry = entry(false);
        String name = string();
        for (Object constant : entry.shape().type().getEnumConstants()) {
            if (((Enum<?>) constant).name().equals(name)) {
                return constant;
            }
        }
        throw new CompactForm.Malformed(entry.shape().type().getName() + " has no constant " + name);
    }

    private <C extends Collection<Object>> C fill(C values, int depth) {
        int count = count(1);
        for (int i = 0; i < count; i++) {
            values.add(value(depth + 1));
        }
        return values;
    }

    private Map<Object, Object> entries(Map<Object, Object> map, int depth) {
        int count = count(2);
        for (int i = 0; i < count; i++) {
            map.put(value(depth + 1), value(depth + 1));
        }
        return map;
    }

    private Entry entry(boolean record) {
        int index = count(0);
        if (index < table.size()) {
            Entry known = table.get(index);
            if ((known.places() != null) != record) {
                throw new CompactForm.Malformed("class " + index + " used as " + (record ? "a record" : "an enum"));
            }
            return known;
        }
        if (index != table.size()) {
            throw new CompactForm.Malformed("class " + index + " named before class " + table.size());
        }
        CompactShape shape = CompactShape.of(CompactShape.resolve(CompactShape.PROJECT + string()));
        if ((shape.names() != null) != record) {
            throw new CompactForm.Malformed(shape.type().getName() + " is not " + (record ? "a record" : "an enum"));
        }
        int[] places = null;
        if (record) {
            int count = count(1);
            String[] written = new String[count];
            for (int i = 0; i < count; i++) {
                written[i] = string();
            }
            places = places(written, shape.names());
        }
        Entry entry = new Entry(shape, places);
        table.add(entry);
        return entry;
    }

    /** Where each component the writer wrote goes here: its place, or -1 when this version has no such one. */
    private static int[] places(String[] written, String[] known) {
        int[] places = new int[written.length];
        for (int i = 0; i < written.length; i++) {
            places[i] = i < known.length && known[i].equals(written[i]) ? i : List.of(known).indexOf(written[i]);
        }
        return places;
    }

    /** A component's value in the kind its declared type asks, where a collection's plain kind is not one. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object fit(Object value, Class<?> type, Type generic) {
        if (value == null || type.isInstance(value) || type.isPrimitive()) {
            return value;
        }
        if (value instanceof Map map) {
            if (type.isAssignableFrom(TreeMap.class)) {
                return new TreeMap<>(map);
            }
            if (type == EnumMap.class && generic instanceof ParameterizedType parameters
                    && parameters.getActualTypeArguments()[0] instanceof Class<?> keys && keys.isEnum()) {
                EnumMap copy = new EnumMap(keys);
                copy.putAll(map);
                return copy;
            }
        }
        if (value instanceof Set set && type.isAssignableFrom(TreeSet.class)) {
            return new TreeSet<>(set);
        }
        return value; // the constructor refuses it: Malformed
    }

    private String text() {
        String text = string();
        if (text.length() >= REMEMBERED_STRING) {
            strings.add(text);
        }
        return text;
    }

    private String again() {
        int index = count(0);
        if (index >= strings.size()) {
            throw new CompactForm.Malformed("string " + index + " named again before it was written");
        }
        return strings.get(index);
    }

    private byte[] bytes() {
        int length = length(1);
        byte[] raw = Arrays.copyOfRange(in, at, at + length);
        at += length;
        return raw;
    }

    private String string() {
        int length = length(1);
        String text = new String(in, at, length, StandardCharsets.UTF_8);
        at += length;
        return text;
    }

    private int integer() {
        long value = signed();
        if (value != (int) value) {
            throw new CompactForm.Malformed("an int of " + value);
        }
        return (int) value;
    }

    private int nanos() {
        long nanos = unsigned();
        if (nanos > 999_999_999) {
            throw new CompactForm.Malformed("nanoseconds " + nanos);
        }
        return (int) nanos;
    }

    /** A count of things that each take at least {@code each} bytes: no more than the bytes left can hold. */
    private int count(int each) {
        long count = unsigned();
        if (count > (long) (in.length - at) / Math.max(each, 1) && each > 0 || count > Integer.MAX_VALUE) {
            throw new CompactForm.Malformed("a count of " + count + " with " + (in.length - at) + " bytes left");
        }
        return (int) count;
    }

    private int length(int each) {
        return count(each);
    }

    private long signed() {
        long raw = unsigned();
        return (raw >>> 1) ^ -(raw & 1);
    }

    private long unsigned() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int next = take();
            value |= (long) (next & 0x7F) << shift;
            if ((next & 0x80) == 0) {
                return value;
            }
        }
        throw new CompactForm.Malformed("a number longer than 64 bits");
    }

    private long fixed() {
        if (in.length - at < 8) {
            throw new CompactForm.Malformed("8 bytes wanted, " + (in.length - at) + " left");
        }
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = value << 8 | (in[at++] & 0xFF);
        }
        return value;
    }

    private int take() {
        if (at >= in.length) {
            throw new CompactForm.Malformed("the value ends early, at byte " + at);
        }
        return in[at++] & 0xFF;
    }
}