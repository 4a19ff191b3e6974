package org.farmgate.node.async;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.Failures;

/**
 * The cluster's answers (Hazelcast's and the shared maps' {@link CompletionStage}s) as Vert.x futures: completed back
 * on the caller's context, so the code after them runs on its event loop, and failed with the real cause rather than
 * the {@link CompletionException} a chain of stages wraps it in.
 */
public final class Stages {

    private Stages() {
    }

    public static <T> Future<T> await(Vertx vertx, CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, vertx.getOrCreateContext())
                .recover(error -> Future.failedFuture(Failures.cause(error)));
    }
}
