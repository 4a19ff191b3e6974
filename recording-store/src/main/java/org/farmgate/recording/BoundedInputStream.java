package org.farmgate.recording;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** At most {@code limit} bytes of a stream; closing it closes the stream. */
final class BoundedInputStream extends FilterInputStream {

    private long left;

    BoundedInputStream(InputStream in, long limit) {
        super(in);
        this.left = Math.max(0, limit);
    }

    @Override
    public int read() throws IOException {
        if (left <= 0) {
            return -1;
        }
        int b = super.read();
        if (b >= 0) {
            left--;
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        if (left <= 0) {
            return -1;
        }
        int n = super.read(buffer, offset, (int) Math.min(length, left));
        if (n > 0) {
            left -= n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(Math.min(n, left));
        left -= skipped;
        return skipped;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.min(super.available(), left);
    }
}
