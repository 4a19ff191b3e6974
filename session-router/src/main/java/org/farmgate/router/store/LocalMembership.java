package org.farmgate.router.store;

import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/** A cluster of one: this node is every member and the coordinator, and nobody ever leaves. */
public final class LocalMembership implements Membership {

    private final String memberId;

    public LocalMembership(String memberId) {
        this.memberId = memberId;
    }

    @Override
    public String localMemberId() {
        return memberId;
    }

    @Override
    public Set<String> memberIds() {
        return Set.of(memberId);
    }

    @Override
    public Map<String, String> addresses() {
        return Map.of(memberId, "local");
    }

    @Override
    public boolean expel(String memberId, String reason) {
        return false;
    }

    @Override
    public boolean isCoordinator() {
        return true;
    }

    @Override
    public void onMemberRemoved(Consumer<String> listener) {
        // nobody else, so nobody leaves
    }
}
