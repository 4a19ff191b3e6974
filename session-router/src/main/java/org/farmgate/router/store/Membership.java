package org.farmgate.router.store;

import java.util.Set;
import java.util.function.Consumer;

/** Who is in the cluster, and who among them coordinates the clean-up after a member leaves. */
public interface Membership {

    String localMemberId();

    Set<String> memberIds();

    /**
     * Whether this member is the oldest: the one that cleans up after a departed member, so that the work is done
     * once and still done when the previous coordinator is the one that left.
     */
    boolean isCoordinator();

    /** Called with the id of every member that leaves, on every remaining member. */
    void onMemberRemoved(Consumer<String> listener);
}
