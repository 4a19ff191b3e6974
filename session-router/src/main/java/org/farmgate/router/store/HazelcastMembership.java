package org.farmgate.router.store;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
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
    public Map<String, String> addresses() {
        Map<String, String> out = new LinkedHashMap<>();
        hazelcast.getCluster().getMembers().forEach(member -> out.put(member.getUuid().toString(),
                member.getAddress().getHost() + ":" + member.getAddress().getPort()));
        return out;
    }

    /**
     * Open-source Hazelcast lets any member in that knows the cluster's name, and has no call to put one out: this
     * uses its failure detector's own (the master removes a member it suspects, closing its connection), which is
     * internal API (see docs/DECISIONS.md). The member may join again; it is expelled again after its grace.
     */
    @Override
    public boolean expel(String memberId, String reason) {
        if (!isCoordinator() || !(hazelcast instanceof HazelcastInstanceProxy proxy)) {
            return false;
        }
        for (Member member : hazelcast.getCluster().getMembers()) {
            if (member.getUuid().toString().equals(memberId) && !member.localMember()) {
                proxy.getOriginal().node.getClusterService().suspectMember(member, reason, true);
                return true;
            }
        }
        return false;
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
