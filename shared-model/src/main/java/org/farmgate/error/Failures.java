package org.farmgate.error;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What failed, under the wrappers a chain of stages or a blocking get puts around it. */
public final class Failures {

    private Failures() {
    }

    /**
     * The first cause that is not a {@link CompletionException} or an {@link ExecutionException} itself. Their
     * subclasses are failures of their own (Hazelcast's {@code MemberLeftException} is an ExecutionException) and
     * are kept. Null for null (a route failed with a status alone).
     */
    public static Throwable cause(Throwable failure) {
        Throwable cause = failure;
        while (cause != null && (cause.getClass() == CompletionException.class || cause.getClass() == ExecutionException.class)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
