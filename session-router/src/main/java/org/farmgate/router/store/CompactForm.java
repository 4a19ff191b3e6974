package org.farmgate.router.store;

/**
 * The binary form shared values travel and lie in: the project's records and enums, and the JDK's strings, numbers,
 * instants, durations, byte arrays, lists, sets and maps, each behind a tag byte. Java serialization, which it
 * replaces for these, described every class in full (its name, each field's name and type signature, its serial
 * version, its superclass) in every value and built its stream machinery anew for each one; here a class is named
 * once per value with its components' names, and a component is its tag and its bytes.
 *
 * <p>What it guarantees, and the races and attacks it is built against:
 * <ul>
 *   <li><b>Only what may be made is made.</b> A reader creates records and enums of the project's packages (a record
 *       through its canonical constructor, so the record's own checks run) and the JDK types above; no other class
 *       is loaded or instantiated on the word of the bytes, whoever wrote them.</li>
 *   <li><b>Nothing is allocated on a length the bytes cannot back</b>: every length and count is checked against the
 *       bytes left first, and nesting is bounded, so a garbled or hostile value fails with {@link Malformed}, never
 *       with an exhausted heap or stack.</li>
 *   <li><b>Two versions read each other.</b> A record's components are read by name: one the writer's version lacks
 *       reads as null, zero or false, as Java serialization reads a record; one the reader lacks is read and
 *       dropped. Enum constants travel by name.</li>
 *   <li><b>What it cannot write, it says</b> ({@link #write} answers null: another class, a map or set sorted by a
 *       comparator, a concurrent map, a string with a lone surrogate), and the caller writes that value as it did
 *       before; {@link #isCompact} tells the two forms apart by the first byte (Java's streams begin with 0xAC).</li>
 * </ul>
 * Collections come back as the kind they were (a list, a set, a map, sorted or not) in the JDK's plain mutable form,
 * or as a record component's declared type asks (a {@code TreeMap}, an {@code EnumMap}).
 */
public final class CompactForm {

    static final byte MAGIC = 0x46;
    private static final byte VERSION = 1;
    static final int DEEPEST = 32;

    static final int NULL = 0;
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int INT = 3;
    static final int LONG = 4;
    static final int DOUBLE = 5;
    static final int STRING = 6;
    static final int INSTANT = 7;
    static final int DURATION = 8;
    static final int BYTES = 9;
    static final int ENUM = 10;
    static final int RECORD = 11;
    static final int LIST = 12;
    static final int SET = 13;
    static final int SORTED_SET = 14;
    static final int MAP = 15;
    static final int SORTED_MAP = 16;
    static final int STRING_AGAIN = 17;
    /**
     * A string this long or longer is written once per value and named by its place after that (a session's id is
     * its reservation's key and a component of it); a shorter one costs less than looking it up.
     */
    static final int REMEMBERED_STRING = 8;


    private CompactForm() {
    }

    /** Bytes that are not in this form, or are garbled: no value is made of them. */
    public static final class Malformed extends IllegalArgumentException {
        Malformed(String message) {
            super(message);
        }

        Malformed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** {@code value} in this form, or null when it holds something this form does not write. */
    public static byte[] write(Object value) {
        CompactWriter writer = new CompactWriter();
        try {
            writer.out(MAGIC);
            writer.out(VERSION);
            writer.value(value, 0);
        } catch (CompactWriter.Unwritable e) {
            return null;
        }
        return writer.written();
    }

    /** Whether {@code bytes} claim this form (and are to be read by {@link #read}). */
    public static boolean isCompact(byte[] bytes) {
        return bytes.length >= 2 && bytes[0] == MAGIC;
    }

    /** The value {@link #write} made {@code bytes} of. */
    public static Object read(byte[] bytes) {
        if (!isCompact(bytes)) {
            throw new Malformed("not in the compact form (first byte "
                    + (bytes.length == 0 ? "missing" : String.valueOf(bytes[0])) + ")");
        }
        if (bytes[1] != VERSION) {
            throw new Malformed("compact form version " + bytes[1] + ", this node reads " + VERSION);
        }
        CompactReader reader = new CompactReader(bytes, 2);
        Object value;
        try {
            value = reader.value(0);
        } catch (Malformed e) {
            throw e;
        } catch (RuntimeException e) { // an instant out of range, a sorted set of things that do not compare
            throw new Malformed("a value no node writes: " + e, e);
        }
        if (reader.left() != 0) {
            throw new Malformed(reader.left() + " bytes after the value");
        }
        return value;
    }
}
