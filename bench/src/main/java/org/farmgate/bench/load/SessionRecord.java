package org.farmgate.bench.load;

import java.util.ArrayList;
import java.util.List;

/** What one virtual user saw; times in milliseconds from its own start, -1 when it never got there. */
final class SessionRecord {

    final int index;
    final String node;
    String sessionId = "";
    double createMs = -1;
    double attachMs = -1;
    double firstFrameMs = -1;
    final List<Double> pingMs = new ArrayList<>();
    final List<Double> inputMs = new ArrayList<>();
    long bytes;
    long instructions;
    long syncs;
    long inputs;
    boolean ok;
    String failure = "";

    SessionRecord(int index, String node) {
        this.index = index;
        this.node = node;
    }
}
