package org.farmgate.node;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Makes Vert.x's blocked-thread check fatal in tests: every warning its checker logs about an event loop blocked for
 * {@value #MOST_MS} ms or more (a name resolved through the system resolver, a file read, a lock) is kept, and a test
 * node fails its test at close if one was logged while it ran. No event loop may ever block, whatever the input.
 * Vert.x warns from 2 s on; on a shared two-core machine a starved thread reaches that without blocking, while a
 * resolver's timeout (5 s) does not hide under 4 s.
 */
final class BlockedEventLoops {

    static final long MOST_MS = 4000;
    private static final Pattern BLOCKED_FOR = Pattern.compile("has been blocked for (\\d+) ms");
    private static final List<String> WARNINGS = new CopyOnWriteArrayList<>();

    static {
        // Vert.x 5.0.7 logs under the checker's former class name.
        Logger checker = (Logger) LoggerFactory.getLogger("io.vertx.core.impl.BlockedThreadChecker");
        AppenderBase<ILoggingEvent> keep = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                String message = event.getFormattedMessage();
                if (message == null || !message.contains("vert.x-eventloop-thread")) {
                    return;
                }
                Matcher blocked = BLOCKED_FOR.matcher(message);
                if (blocked.find() && Long.parseLong(blocked.group(1)) >= MOST_MS) {
                    WARNINGS.add(message);
                }
            }
        };
        keep.setContext(checker.getLoggerContext());
        keep.start();
        checker.addAppender(keep);
    }

    private BlockedEventLoops() {
    }

    /** How many warnings so far: a mark to compare with later. */
    static int mark() {
        return WARNINGS.size();
    }

    /** The warnings logged since {@code mark}. */
    static List<String> since(int mark) {
        return List.copyOf(WARNINGS.subList(mark, WARNINGS.size()));
    }
}
