package org.farmgate.node.auth;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where tokens outlive the cluster: a token is written there before anyone may use it (a database that is away
 * refuses the creation), and a revocation is recorded there however long the database is away (refused by the
 * cluster at once, written when it can be). What a cluster started from nothing reads back.
 */
public interface TokenLedger {

    CompletionStage<Void> created(TokenRecord record, String createdBy);

    void revoked(TokenRecord record, String by);

    /** The tokens neither revoked nor expired. */
    CompletionStage<List<TokenRecord>> active();

    /** A cluster that keeps nothing: its tokens live as long as its maps. */
    TokenLedger NONE = new TokenLedger() {
        @Override
        public CompletionStage<Void> created(TokenRecord record, String createdBy) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void revoked(TokenRecord record, String by) {
        }

        @Override
        public CompletionStage<List<TokenRecord>> active() {
            return CompletableFuture.completedFuture(List.of());
        }
    };
}
