package org.farmgate.router.seal;

import java.io.Serializable;

/**
 * An owner's answer to a sealed update: the update's own answer, and the revision it wrote (0: it wrote nothing),
 * whether that left a record, or why the owner refused to decide ({@code refused}: the entry was a replay, or the
 * order was). The sender publishes the revision as a fence.
 */
record Revised<R>(R result, long revision, boolean present, boolean fenced, String refused) implements Serializable {

    static <R> Revised<R> refused(String why) {
        return new Revised<>(null, 0, false, false, why);
    }
}
