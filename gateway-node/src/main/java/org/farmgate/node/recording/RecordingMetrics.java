package org.farmgate.node.recording;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/** What an operator watches of the recordings: bytes taken and uploaded, failures, stops, what waits on disk. */
final class RecordingMetrics {

    private final Counter recorded;
    private final Counter uploadedBytes;
    private final Counter parts;
    private final Counter failures;
    private final Counter stopped;
    private final Counter incomplete;

    RecordingMetrics(MeterRegistry registry, Supplier<Number> active, Supplier<Number> spoolBytes) {
        recorded = Counter.builder("farmgate_recording_bytes").baseUnit("bytes")
                .description("Bytes of sessions' display and input taken into recordings").register(registry);
        uploadedBytes = Counter.builder("farmgate_recording_uploaded_bytes").baseUnit("bytes")
                .description("Bytes of recordings uploaded to storage").register(registry);
        parts = Counter.builder("farmgate_recording_parts_uploaded")
                .description("Parts of recordings uploaded to storage").register(registry);
        failures = Counter.builder("farmgate_recording_storage_failures")
                .description("Calls to recording storage that failed (each is tried again)").register(registry);
        stopped = Counter.builder("farmgate_recordings_stopped")
                .description("Recordings stopped before their session ended: a spool bound was reached")
                .register(registry);
        incomplete = Counter.builder("farmgate_recordings_incomplete")
                .description("Recordings that ended incomplete").register(registry);
        Gauge.builder("farmgate_recordings_active", active).description("Sessions being recorded on this node")
                .register(registry);
        Gauge.builder("farmgate_recording_spool_bytes", spoolBytes).baseUnit("bytes")
                .description("Bytes of recordings waiting on this node's disk to be uploaded").register(registry);
    }

    void recorded(long bytes) {
        recorded.increment(bytes);
    }

    void uploaded(long bytes) {
        parts.increment();
        uploadedBytes.increment(bytes);
    }

    void failed() {
        failures.increment();
    }

    void stopped() {
        stopped.increment();
    }

    void incomplete() {
        incomplete.increment();
    }
}
