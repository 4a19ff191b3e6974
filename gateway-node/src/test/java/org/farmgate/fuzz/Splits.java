package org.farmgate.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A fuzzed byte stream and where the network cut it: what every stream reader must give the same answer for. */
public record Splits(byte[] bytes, int[] cuts) {

    /** Takes up to eight cut points, then the rest of the input as the stream. */
    public static Splits from(FuzzedDataProvider data) {
        int count = data.consumeInt(0, 8);
        int[] raw = new int[count];
        for (int i = 0; i < count; i++) {
            raw[i] = data.consumeInt(0, Integer.MAX_VALUE);
        }
        byte[] bytes = data.consumeRemainingAsBytes();
        int[] cuts = Arrays.stream(raw).map(cut -> Math.floorMod(cut, bytes.length + 1)).sorted()
                .distinct().toArray();
        return new Splits(bytes, cuts);
    }

    /** The stream in its pieces, in order; together exactly the stream. */
    public List<byte[]> pieces() {
        List<byte[]> pieces = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            pieces.add(Arrays.copyOfRange(bytes, from, cut));
            from = cut;
        }
        pieces.add(Arrays.copyOfRange(bytes, from, bytes.length));
        return pieces;
    }
}
