package org.farmgate.node.accountability;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.Operation;
import org.farmgate.durable.TokenRow;
import org.farmgate.model.Role;
import org.farmgate.node.auth.TokenLedger;
import org.farmgate.node.auth.TokenRecord;

/** The tokens' ledger in the durable store. */
public final class DurableTokens implements TokenLedger {

    private final DurableStore store;
    private final Clock clock;

    public DurableTokens(DurableStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Void> created(TokenRecord record, String createdBy) {
        return store.run(Operation.saveToken(new TokenRow(record.id(), record.name(), record.hash(),
                record.role().wireName(), List.copyOf(record.groups()), record.createdAt(), record.expiresAt(),
                createdBy, record.owner())));
    }

    @Override
    public void revoked(TokenRecord record, String by) {
        store.record(new Fact.TokenRevoked(record.id(), clock.instant(), by));
    }

    @Override
    public CompletionStage<List<TokenRecord>> active() {
        return store.run(Operation.activeTokens(clock.instant())).thenApply(rows -> rows.stream()
                .map(row -> new TokenRecord(row.id(), row.name(), Role.parse(row.role()), new HashSet<>(row.groups()),
                        row.createdAt(), row.expiresAt(), row.hash(), row.ownerId()))
                .toList());
    }
}
