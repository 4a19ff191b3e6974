package org.farmgate.bench.seal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.seal.Seal;
import org.farmgate.router.seal.Sealed;
import org.farmgate.router.store.CompactForm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a shared record costs to seal and open, the way a signed update is (signed, sent, checked and read on the
 * owner, every time): the records a create writes, in Java serialization and in the compact form, in one run;
 * {@code sealAndOpen} is the seal itself, whichever form the router on the class path uses, so the same command with
 * an earlier node jar first on the class path gives the earlier seal's figure:
 * {@code java -cp bench/target/farmgate-bench.jar org.openjdk.jmh.Main SealBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SealBenchmark {

    private static final Instant AT = Instant.parse("2026-12-07T10:15:30Z");
    private static final ObjectInputFilter CLASSES = ObjectInputFilter.Config.createFilter(
            "org.farmgate.**;java.**;!*");

    /** A node's entry with no reservations and with 20, a session's record, a user's places. */
    @Param({"node-0", "node-20", "session", "places"})
    public String record;

    private Serializable value;
    private Seal seal;
    private byte[] javaBytes;
    private byte[] compactBytes;

    @Setup
    public void make() throws IOException {
        value = switch (record) {
            case "node-0" -> node(0);
            case "node-20" -> node(20);
            case "session" -> new SessionInfo("3f0c6a53-9a8e-4c1b-8d2e-000000000001", Protocol.RDP,
                    SessionStatus.ACTIVE, AT, "desktop-12.farm.example", 3389, "alice", "alice", "oidc:alice", 0,
                    "node-2", 143, null, null, List.of(), "alice@example.org", 4, false);
            case "places" -> new SessionQuota.Places("oidc:alice",
                    new TreeMap<>(Map.of("3f0c6a53-9a8e-4c1b-8d2e-000000000001", 143)));
            default -> throw new IllegalArgumentException("no record " + record);
        };
        seal = new Seal(List.of("a-cluster-key-of-thirty-two-byte".getBytes()));
        javaBytes = javaWrite(value);
        compactBytes = CompactForm.write(value);
        // Null with an earlier node jar first on the class path, where a node's entry held a class the form lacks.
        System.out.printf("%n%s: %d bytes in Java serialization, %s in the compact form%n", record,
                javaBytes.length, compactBytes == null ? "not written" : compactBytes.length);
    }

    @Benchmark
    public Object javaSerialization() throws IOException, ClassNotFoundException {
        return javaRead(javaWrite(value));
    }

    @Benchmark
    public Object compactForm() {
        return CompactForm.read(CompactForm.write(value));
    }

    @Benchmark
    public Object sealAndOpen() {
        Sealed sealed = seal.sign("farmgate.bench#update", "key", 1, value);
        return seal.openSigned(sealed, "farmgate.bench#update", "key");
    }

    static NodeLoad node(int reservations) {
        List<Reservation> held = new ArrayList<>();
        for (int i = 0; i < reservations; i++) {
            held.add(new Reservation("3f0c6a53-9a8e-4c1b-8d2e-" + String.format("%012d", i),
                    Protocol.values()[i % 3], 100 + i, i % 2 == 0, AT.plusSeconds(i)));
        }
        return new NodeLoad("node-1", new NodeAddress("member-1", "10.0.0.1", 8080),
                new NodeLimits(16_000, 512, 500, 0), CostModel.MEASURED_GUACD_1_6,
                new HostMeasurements(32_000, 12_000, 800, 120, true, 8, 1.25, AT, "boot-id", 1),
                ReservationBook.of(held), false, AT);
    }

    private static byte[] javaWrite(Serializable value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static Object javaRead(byte[] bytes) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            in.setObjectInputFilter(CLASSES);
            return in.readObject();
        }
    }
}
