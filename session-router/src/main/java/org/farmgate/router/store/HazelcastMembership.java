package org.farmgate.router.store;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import java.util.Iterator;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/** Membership from a Hazelcast instance; its member list is ordered oldest first on every member alike. */
public final class HazelcastMembership implements Membership {

    private final HazelcastInstance hazelcast;

    public HazelcastMembership(HazelcastInstance hazelcast) {
        this.hazelcast = hazelcast;
    }

    @Override
    public String localMemberId() {
        return hazelcast.getCluster().getLocalMember().getUuid().toString();
    }

    @Override
    public Set<String> memberIds() {
        return hazelcast.getCluster().getMembers().stream().map(member -> member.getUuid().toString())
                .collect(Collectors.toSet());
    }

    @Override
    public boolean isCoordinator() {
        Iterator<Member> members = hazelcast.getCluster().getMembers().iterator();
        return members.hasNext() && members.next().localMember();
    }

    @Override
    public void onMemberRemoved(Consumer<String> listener) {
        hazelcast.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
                // a new member publishes its own entry
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                listener.accept(event.getMember().getUuid().toString());
            }
        });
    }
}
