package org.farmgate.router.store;

import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/** Who is in the cluster, and who among them coordinates the clean-up after a member leaves. */
public interface Membership {

    String localMemberId();

    Set<String> memberIds();

    /** Every member's id with the address it joined from (host:port). */
    Map<String, String> addresses();

    /**
     * Removes a member from the cluster, when this member coordinates: one that joined but never proved itself a
     * node. False when this member cannot (it does not coordinate, or the member is gone).
     */
    boolean expel(String memberId, String reason);

    /**
     * Whether this member is the oldest: the one that cleans up after a departed member, so that the work is done
     * once and still done when the previous coordinator is the one that left.
     */
    boolean isCoordinator();

    /** Called with the id of every member that leaves, on every remaining member. */
    void onMemberRemoved(Consumer<String> listener);
}
