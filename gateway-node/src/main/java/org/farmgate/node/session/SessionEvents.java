package org.farmgate.node.session;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.farmgate.model.SessionStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who hears of a session's life on this node: the metrics, the drive directories, and what keeps history, audit and
 * recordings. The {@link SessionLedger} tells every step here and knows none of them.
 *
 * <p>Subscribers are called on the thread that made the step, in the session's order, often under the session's lock
 * and on an event loop: they must not block, and must hand any I/O to their own queue. One that throws is logged and
 * the others still hear the event.
 */
public final class SessionEvents {

    private static final Logger LOG = LoggerFactory.getLogger(SessionEvents.class);

    private final List<Consumer<SessionEvent>> subscribers = new CopyOnWriteArrayList<>();

    public void subscribe(Consumer<SessionEvent> subscriber) {
        subscribers.add(subscriber);
    }

    /**
     * A subscriber that counts every end by the status it leaves: ended as its record says, deleted while live as
     * completed, marked lost as lost.
     */
    public static Consumer<SessionEvent> countingEnds(Consumer<SessionStatus> count) {
        return event -> {
            if (event instanceof SessionEvent.Ended ended) {
                count.accept(ended.session().status());
            } else if (event instanceof SessionEvent.Deleted deleted && deleted.wasLive()) {
                count.accept(SessionStatus.COMPLETED);
            } else if (event instanceof SessionEvent.Lost) {
                count.accept(SessionStatus.LOST);
            }
        };
    }

    /**
     * A subscriber told the id of every session that stops running on this node (ended, or deleted while live), for
     * what a session holds here beyond its guacd connection (a drive, a chain of jump hosts).
     */
    public static Consumer<SessionEvent> onStop(Consumer<String> sessionId) {
        return event -> {
            if (event instanceof SessionEvent.Ended
                    || event instanceof SessionEvent.Deleted deleted && deleted.wasLive()) {
                sessionId.accept(event.session().sessionId());
            }
        };
    }

    void tell(SessionEvent event) {
        for (Consumer<SessionEvent> subscriber : subscribers) {
            try {
                subscriber.accept(event);
            } catch (RuntimeException e) {
                LOG.warn("a subscriber failed on {} of session {}: {}", event.getClass().getSimpleName(),
                        event.session().sessionId(), e.toString());
            }
        }
    }
}
