package org.farmgate.node.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.farmgate.router.seal.Fences;
import org.junit.jupiter.api.Test;

/** Fences cross the event bus as they were written; a batch that lies about its sizes allocates nothing. */
class FenceBusTest {

    @Test
    void aBatchReadsBackAsWritten() {
        List<Fences.Fence> batch = List.of(new Fences.Fence("farmgate.tokens", "ab12", 1L << 40, false, 0),
                new Fences.Fence("farmgate.tickets", "wst_é", 7, true, 123_456), new Fences.Fence("", "", 0, true, 0));
        assertEquals(batch, FenceBus.decode(FenceBus.encode(batch)));
        assertEquals(List.of(), FenceBus.decode(FenceBus.encode(List.of())));
    }

    @Test
    void aBatchThatLiesAboutItsSizesIsRefused() {
        Buffer good = FenceBus.encode(List.of(new Fences.Fence("m", "k", 1, true, 0)));
        for (Buffer bad : List.of(Buffer.buffer().appendInt(Integer.MAX_VALUE), Buffer.buffer().appendInt(-1),
                Buffer.buffer().appendInt(1).appendInt(Integer.MAX_VALUE).appendBytes(new byte[40]),
                good.getBuffer(0, good.length() - 3), Buffer.buffer())) {
            assertThrows(RuntimeException.class, () -> FenceBus.decode(bad), bad.toString());
        }
    }
}
