package org.farmgate.node.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Cuts a byte stream, read in arbitrary chunks, into whole instructions: after each {@link #feed}, the bytes
 * {@code [completeStart, completeEnd)} of {@link #array()} are whole instructions, and the one instruction still
 * incomplete is kept (bounded by the limits) for the next chunk.
 *
 * <p>Each chunk is copied once into the cutter's own array, behind the kept start of an instruction, and scanned
 * there: the scanner reads arrays, and a chunk read from guacd is off the heap. The array is reused, compacted when
 * it runs out and grown by doubling, so an instruction arriving a byte per chunk costs linear time, not quadratic.
 *
 * <p>A cutter made {@link #withSlices} also keeps the chunks themselves (retained slices of them), so that what it
 * cut goes out as the very memory it was read into ({@link #slice}): a relayed byte is copied once, into this array
 * to be checked, and not twice more (Vert.x's copy of every read onto the heap, Netty's copy of a heap buffer back
 * off it to write it). An instruction kept across more than {@value #MAX_KEPT_CHUNKS} chunks is copied out of them
 * into a buffer of its own instead, so a stream that arrives a byte at a time holds neither a chunk per byte nor a
 * buffer of a million parts. Whatever it keeps is let go by {@link #release}, the cutter's last call.
 */
final class InstructionCutter {

    /** Sees each whole instruction as it is found, with the scanner describing it. */
    interface Visitor {
        void instruction(byte[] bytes, int start, int end, InstructionScanner scanner);
    }

    static final int MAX_KEPT_CHUNKS = 64;
    /**
     * The largest array kept with nothing in it: twice a 64 KiB read and a frame's worth of instructions left over
     * (guacd's image data comes in instructions of about 6 KB). One grown for a long instruction (up to 256 KiB from
     * guacd) is let go once it is done, so a session does not keep it for its lifetime.
     */
    static final int LARGEST_IDLE_ARRAY = 256 * 1024;
    private static final byte[] EMPTY = new byte[0];

    private final InstructionScanner scanner;
    private final boolean slices;
    private byte[] array = EMPTY;
    /** The instruction still incomplete, at {@code [keptStart, keptEnd)} of the array. */
    private int keptStart;
    private int keptEnd;
    /** With slices: the kept bytes as they were read; and, until the next feed, the ones the last feed completed. */
    private ByteBuf kept;
    private boolean keptIsCopy;
    private ByteBuf spent;
    /** The last feed: where its chunk starts in the array, the chunk, and the slices of what came before it. */
    private int chunkStart;
    private ByteBuf chunk;
    private ByteBuf before;
    private int beforeStart;
    private long copied;
    private int completeStart;
    private int completeEnd;
    private long instructions;

    InstructionCutter(WireLimits limits) {
        this(limits, false);
    }

    private InstructionCutter(WireLimits limits, boolean slices) {
        this.scanner = new InstructionScanner(limits);
        this.slices = slices;
    }

    /** A cutter whose whole instructions can be sent on as the memory they were read into ({@link #slice}). */
    static InstructionCutter withSlices(WireLimits limits) {
        return new InstructionCutter(limits, true);
    }

    void feed(Buffer chunk, Visitor visitor) throws WireFormatException {
        feed(Bytes.byteBuf(chunk), visitor);
    }

    /**
     * Cuts the chunk's readable bytes; the caller still owns the chunk (its reference count is not changed, unless
     * by the slices this cutter keeps).
     */
    void feed(ByteBuf chunk, Visitor visitor) throws WireFormatException {
        releaseSpent();
        int length = chunk.readableBytes();
        makeRoom(length);
        chunk.getBytes(chunk.readerIndex(), array, keptEnd, length);
        copied += length;
        this.chunk = chunk;
        chunkStart = keptEnd;
        before = kept;
        beforeStart = keptStart;
        int to = keptEnd + length;
        int start = keptStart;
        int from = keptEnd;
        completeStart = start;
        completeEnd = start;
        while (from < to) {
            int end = scanner.scan(array, from, to);
            if (end < 0) {
                break;
            }
            instructions++;
            completeEnd = end;
            visitor.instruction(array, start, end, scanner);
            start = end;
            from = end;
        }
        keep(start, to);
    }

    /**
     * Room behind the kept bytes for a chunk of this length: the kept bytes moved to the front when that makes room
     * for at least as much again, the array doubled otherwise. Each move copies at most what was fed since the last.
     */
    private void makeRoom(int length) {
        if (keptStart == keptEnd && array.length > LARGEST_IDLE_ARRAY && length <= LARGEST_IDLE_ARRAY / 4) {
            array = EMPTY;
        }
        if (keptEnd + length <= array.length) {
            return;
        }
        int keptLength = keptEnd - keptStart;
        int needed = keptLength + length;
        if (2 * needed <= array.length) {
            System.arraycopy(array, keptStart, array, 0, keptLength);
        } else {
            byte[] grown = new byte[Math.max(2 * needed, 2 * array.length)];
            System.arraycopy(array, keptStart, grown, 0, keptLength);
            array = grown;
        }
        copied += keptLength;
        keptStart = 0;
        keptEnd = keptLength;
    }

    /** Keeps {@code [start, to)}, the incomplete rest, for the next chunk; in place: the array moves only for room. */
    private void keep(int start, int to) {
        if (start == to) {
            keptStart = 0;
            keptEnd = 0;
        } else {
            keptStart = start;
            keptEnd = to;
        }
        if (!slices) {
            return;
        }
        if (start < chunkStart) {
            // nothing completed: the kept instruction grows by this chunk
            if (to > chunkStart) {
                kept = append(kept, chunk, chunk.readerIndex(), to - chunkStart);
            }
        } else {
            spent = kept; // the slices of the instructions just completed may still be asked for, until the next feed
            kept = start == to ? null : chunk.retainedSlice(chunk.readerIndex() + start - chunkStart, to - start);
            keptIsCopy = false;
        }
    }

    /**
     * The kept instruction grows by {@code [from, from + length)} of the chunk: one more slice of a chunk, or, past
     * {@value #MAX_KEPT_CHUNKS} of them, bytes appended to a buffer of its own (which doubles as it grows).
     */
    private ByteBuf append(ByteBuf head, ByteBuf chunk, int from, int length) {
        if (head == null) {
            return chunk.retainedSlice(from, length);
        }
        if (keptIsCopy) {
            if (head.writableBytes() < length) {
                copied += head.readableBytes();
            }
            head.writeBytes(chunk, from, length);
            copied += length;
            return head;
        }
        CompositeByteBuf composite = head instanceof CompositeByteBuf c ? c
                : Unpooled.compositeBuffer(MAX_KEPT_CHUNKS).addComponent(true, head);
        if (composite.numComponents() < MAX_KEPT_CHUNKS) {
            return composite.addComponent(true, chunk.retainedSlice(from, length));
        }
        int keptLength = keptEnd - keptStart; // the chunk's part included: the array holds it
        ByteBuf copy = chunk.alloc().directBuffer(2 * keptLength).writeBytes(array, keptStart, keptLength);
        copied += keptLength;
        composite.release();
        keptIsCopy = true;
        return copy;
    }

    /**
     * The bytes {@code [start, end)} of the array as the chunks they were read from, retained for the caller (who
     * releases it, or hands it to a write that does); valid for ranges of whole instructions the last feed found (in
     * its visitor, those found so far), until the next feed, and while the caller still holds that feed's chunk.
     */
    ByteBuf slice(int start, int end) {
        if (!slices) {
            throw new IllegalStateException("this cutter keeps no slices");
        }
        if (start < completeStart || end > completeEnd || start > end) {
            throw new IndexOutOfBoundsException("[" + start + ", " + end + ") is not within the instructions the "
                    + "last feed completed, [" + completeStart + ", " + completeEnd + ")");
        }
        if (start == end) {
            return Unpooled.EMPTY_BUFFER;
        }
        int offset = chunk.readerIndex();
        if (start >= chunkStart) {
            return chunk.retainedSlice(offset + start - chunkStart, end - start);
        }
        ByteBuf head = before.retainedSlice(start - beforeStart, Math.min(end, chunkStart) - start);
        if (end <= chunkStart) {
            return head;
        }
        return Unpooled.wrappedBuffer(2, head, chunk.retainedSlice(offset, end - chunkStart));
    }

    /** Lets go of every chunk kept; the cutter is done (an anchor that took over its framing releases it then). */
    void release() {
        releaseSpent();
        if (kept != null) {
            kept.release();
            kept = null;
            keptIsCopy = false;
        }
        chunk = null;
        before = null;
    }

    private void releaseSpent() {
        if (spent != null) {
            spent.release();
            spent = null;
        }
    }

    /** Bytes copied so far: linear in what was fed, whatever the chunking (see the test). */
    long bytesCopied() {
        return copied;
    }

    byte[] array() {
        return array;
    }

    int completeStart() {
        return completeStart;
    }

    int completeEnd() {
        return completeEnd;
    }

    int completeLength() {
        return completeEnd - completeStart;
    }

    /** Whole instructions seen so far. */
    long instructions() {
        return instructions;
    }

    /** Whether the stream so far ends inside an instruction. */
    boolean isInsideInstruction() {
        return scanner.isInsideInstruction();
    }

    /** The array's length, for the tests of its growth. */
    int capacity() {
        return array.length;
    }
}
