package org.farmgate.router.store;

import java.io.Serializable;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A class of the project as the compact form writes and reads it: a record's components (names, fields, declared types,
 * what each reads as when a writer lacks it, the canonical constructor), or an enum; {@link #NONE} for any other class,
 * which the form neither writes nor makes. Found once per class and kept with it.
 */
record CompactShape(Class<?> type, String[] names, Field[] fields, Class<?>[] types, Type[] generics,
        Object[] defaults, Constructor<?> constructor) {

    static final CompactShape NONE = new CompactShape(null, null, null, null, null, null, null);
    private static final Set<Class<?>> PRIMITIVES = Set.of(int.class, long.class, boolean.class, double.class);
    /** The declared types the reader's values fit. */
    private static final Set<Class<?>> MADE = Set.of(String.class, Integer.class, Long.class, Boolean.class,
            Double.class, Number.class, Instant.class, Duration.class, byte[].class, Object.class, Serializable.class,
            Comparable.class, CharSequence.class, Iterable.class, Collection.class, List.class, ArrayList.class,
            Set.class, HashSet.class, LinkedHashSet.class, SortedSet.class, NavigableSet.class, TreeSet.class,
            Map.class, HashMap.class, LinkedHashMap.class, SortedMap.class, NavigableMap.class, TreeMap.class);
    private static final Set<Class<?>> PLAIN = Set.of(ArrayList.class, HashSet.class, LinkedHashSet.class,
            TreeSet.class, HashMap.class, LinkedHashMap.class, TreeMap.class, EnumMap.class);
    /**
     * Every class is the project's: its name travels without this, which the reader puts back, so no other class can
     * even be named.
     */
    static final String PROJECT = "org.farmgate.";
    private static final ClassValue<CompactShape> SHAPES = new ClassValue<>() {
        @Override
        protected CompactShape computeValue(Class<?> type) {
            return shapeOf(type);
        }
    };
    /** Names the bytes asked for that resolved to a class that may be made; a name that did not is never kept. */
    private static final Map<String, Class<?>> RESOLVED = new ConcurrentHashMap<>();

    static CompactShape of(Class<?> type) {
        return SHAPES.get(type);
    }

    private static CompactShape shapeOf(Class<?> type) {
        if (!type.getName().startsWith(PROJECT)) {
            return NONE;
        }
        if (type.isEnum()) {
            return new CompactShape(type, null, null, null, null, null, null);
        }
        if (!type.isRecord() || !Serializable.class.isAssignableFrom(type)) {
            return NONE;
        }
        RecordComponent[] components = type.getRecordComponents();
        int count = components.length;
        String[] names = new String[count];
        Field[] fields = new Field[count];
        Class<?>[] types = new Class<?>[count];
        Type[] generics = new Type[count];
        Object[] defaults = new Object[count];
        for (int i = 0; i < count; i++) {
            names[i] = components[i].getName();
            fields[i] = field(type, names[i]);
            types[i] = components[i].getType();
            generics[i] = components[i].getGenericType();
            defaults[i] = zero(types[i]);
            if (!made(generics[i], true)) {
                return NONE; // a component the reader could not make again: the whole record goes by Java serialization
            }
        }
        try {
            Constructor<?> constructor = type.getDeclaredConstructor(types);
            constructor.setAccessible(true);
            return new CompactShape(type, names, fields, types, generics, defaults, constructor);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("a record without its canonical constructor: " + type.getName(), e);
        }
    }

    /**
     * A component's field, not its accessor: an accessor may answer a copy or a view (a cost model's map), and Java
     * serialization, which this form replaces, wrote the fields too.
     */
    private static Field field(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("a record without its component's field: " + type.getName(), e);
        }
    }

    /**
     * Whether every value the form writes where {@code declared} is declared is one the reader makes again in a kind
     * that fits it: the types the form carries, the interfaces and plain classes of the collections it makes (and an
     * {@code EnumMap} as a record's component, which the reader rebuilds), the project's records, enums and
     * interfaces, each type argument likewise. A record with any other component is not written in this form.
     */
    private static boolean made(Type declared, boolean component) {
        if (declared instanceof ParameterizedType parameters) {
            for (Type argument : parameters.getActualTypeArguments()) {
                if (!made(argument, false)) {
                    return false;
                }
            }
            return made(parameters.getRawType(), component);
        }
        if (declared instanceof WildcardType wildcard) {
            return made(erasure(wildcard.getUpperBounds()[0]), false);
        }
        if (declared instanceof TypeVariable<?> variable) {
            return made(erasure(variable.getBounds()[0]), false);
        }
        if (!(declared instanceof Class<?> type)) {
            return false; // an array of a generic type
        }
        if (type.isPrimitive()) {
            return PRIMITIVES.contains(type);
        }
        if (type.getName().startsWith(PROJECT)) {
            return type.isRecord() || type.isEnum() || type.isInterface();
        }
        return MADE.contains(type) || component && type == EnumMap.class;
    }

    private static Type erasure(Type bound) {
        return bound instanceof ParameterizedType parameters ? parameters.getRawType() : bound;
    }

    /**
     * The JDK collections the form writes: the reader's plain list, set or map (sorted or not) stands for each. A
     * collection of another class (a linked list, an enum set, a concurrent or identity map) is not written in this
     * form, since code that holds it may count on its class.
     */
    static boolean plain(Class<?> collection) {
        String name = collection.getName();
        return PLAIN.contains(collection) || name.startsWith("java.util.ImmutableCollections$")
                || name.startsWith("java.util.Collections$Unmodifiable") || name.startsWith("java.util.Collections$Empty")
                || name.startsWith("java.util.Collections$Singleton") || name.equals("java.util.Arrays$ArrayList");
    }

    boolean writable() {
        return type != null;
    }

    private static Object zero(Class<?> type) {
        if (!type.isPrimitive()) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == double.class) {
            return 0.0;
        }
        if (type == float.class) {
            return 0.0f;
        }
        if (type == long.class) {
            return 0L;
        }
        return type == int.class ? 0 : type == short.class ? (Object) (short) 0 : (Object) (byte) 0;
    }

    /** The project's class of that name (without the project's prefix) that the form may make; Malformed if none. */
    static Class<?> resolve(String name) {
        Class<?> known = RESOLVED.get(name);
        if (known != null) {
            return known;
        }
        Class<?> type;
        try {
            type = Class.forName(name, false, CompactShape.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new CompactForm.Malformed("a class this node does not have: " + name, e);
        }
        if (!of(type).writable()) {
            throw new CompactForm.Malformed("neither a record nor an enum of the project: " + name);
        }
        RESOLVED.put(name, type);
        return type;
    }
}
