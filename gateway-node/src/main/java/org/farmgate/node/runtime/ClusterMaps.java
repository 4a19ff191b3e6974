package org.farmgate.node.runtime;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NearCacheConfig;
import com.hazelcast.spi.merge.DiscardMergePolicy;
import java.io.Serializable;
import java.util.List;
import java.util.function.BiConsumer;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.node.accountability.Restoration;
import org.farmgate.node.auth.Login;
import org.farmgate.node.auth.TokenRecord;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.hostkey.TrustedKey;
import org.farmgate.node.people.MappedRole;
import org.farmgate.node.people.Standing;
import org.farmgate.node.share.Share;
import org.farmgate.node.signin.OidcSignIn;
import org.farmgate.node.signin.PendingLogin;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.addressbook.AddressBookCache;
import org.farmgate.router.seal.SealedMap;

/**
 * The cluster's maps, each declared once with all that is decided about it: its name, what its records grant
 * (the seal's {@link SealedMap.Policy}) and how Hazelcast keeps it (backups, near cache, in-memory form, split-brain
 * protection). Every map merges after a split by {@link DiscardMergePolicy}: the side that merges (the smaller) drops
 * its copy instead of adding the keys the other side lacks, which are mostly records the other side removed meanwhile
 * (an ended session, a revoked token, a spent share) and which Hazelcast's default (put if absent) brought back to
 * life, found by the fault campaign. What the merging nodes still hold they write back themselves under their new
 * member ids (registry entry, session records, quota places); tokens and shares made on the small side during the
 * split are lost.
 */
public final class ClusterMaps {

    /**
     * One map.
     *
     * @param tuning how Hazelcast keeps it beyond one synchronous backup, given the split-brain protection's name
     *     (null: none)
     */
    public record ClusterMap<V extends Serializable>(String name, SealedMap.Policy policy,
            BiConsumer<MapConfig, String> tuning) {

        MapConfig config(String quorum) {
            MapConfig config = new MapConfig(name).setBackupCount(1);
            tuning.accept(config, quorum);
            config.getMergePolicyConfig().setPolicy(DiscardMergePolicy.class.getName());
            return config;
        }
    }

    private static final BiConsumer<MapConfig, String> ONE_BACKUP = (config, quorum) -> { };

    /**
     * Changed by entry processors many times a second: kept as objects, so that an update does not deserialise the
     * entry first. The backup is asynchronous (a reservation does not wait for it): an update lost with a crashed
     * partition owner is repaired by the node's next heartbeat, which reconciles the entry with the sessions the node
     * really holds. A reservation is decided by the entry's owner, so a write's fence goes to it and its backup only:
     * a summary read elsewhere is advice, and a copy put back is at most shown until the node's next beat.
     */
    public static final ClusterMap<NodeLoad> NODES = new ClusterMap<>("farmgate.nodes",
            SealedMap.Policy.DECIDED_BY_OWNER,
            (config, quorum) -> config.setBackupCount(0).setAsyncBackupCount(1).setSplitBrainProtectionName(quorum)
                    .setInMemoryFormat(InMemoryFormat.OBJECT));
    public static final ClusterMap<SessionInfo> SESSIONS = new ClusterMap<>("farmgate.sessions",
            SealedMap.Policy.GRANTS_NOTHING, (config, quorum) -> config.setSplitBrainProtectionName(quorum));
    /**
     * A user's places: a missing entry grants every place, so one deleted since a write is not believed. A place is
     * taken by an update its owner decides: the fences stay with the owner and its backup.
     */
    public static final ClusterMap<SessionQuota.Places> USER_SESSIONS = new ClusterMap<>("farmgate.user-sessions",
            new SealedMap.Policy(true, null, true, true), (config, quorum) -> config.setSplitBrainProtectionName(quorum)
                    .setInMemoryFormat(InMemoryFormat.OBJECT));
    /** Every API call reads a token: a copy near each node, invalidated when a token changes. */
    public static final ClusterMap<TokenRecord> TOKENS = new ClusterMap<>("farmgate.tokens",
            SealedMap.Policy.DEFAULT, (config, quorum) -> config.setNearCacheConfig(
                    new NearCacheConfig("farmgate.tokens").setInvalidateOnChange(true)));
    public static final ClusterMap<TokenService.NameClaim> TOKEN_NAMES = new ClusterMap<>("farmgate.token-names",
            SealedMap.Policy.DEFAULT, ONE_BACKUP);
    public static final ClusterMap<Share> SHARES = new ClusterMap<>("farmgate.shares", SealedMap.Policy.DEFAULT,
            ONE_BACKUP);
    public static final ClusterMap<Login> LOGINS = new ClusterMap<>("farmgate.logins", SealedMap.Policy.DEFAULT,
            ONE_BACKUP);
    /** Pending sign-ins live minutes: a copy older than that is dead whatever its time to live in the map says (a
     * stranger that puts one back chooses that), and their fences can go then. */
    public static final ClusterMap<PendingLogin> LOGIN_FLOWS = new ClusterMap<>("farmgate.login-flows",
            new SealedMap.Policy(false, OidcSignIn.PENDING_LIFETIME.multipliedBy(2), true), ONE_BACKUP);
    /** Read on every GET by every node: a deserialised copy near each node, the owner's too. */
    public static final ClusterMap<AddressBook> ADDRESSBOOK = new ClusterMap<>("farmgate.addressbook",
            SealedMap.Policy.DEFAULT, (config, quorum) -> config.setNearCacheConfig(
                    new NearCacheConfig("farmgate.addressbook").setInvalidateOnChange(true)
                            .setInMemoryFormat(InMemoryFormat.OBJECT).setCacheLocalEntries(true)));
    public static final ClusterMap<AddressBookCache.Lease> ADDRESSBOOK_LEASE = new ClusterMap<>(
            "farmgate.addressbook-lease", SealedMap.Policy.GRANTS_NOTHING, ONE_BACKUP);

    /**
     * What an admin decided of a person, read at every sign-in: a missing entry lets them in with their groups' role,
     * so an entry deleted since a write is not believed.
     */
    public static final ClusterMap<Standing> PEOPLE = new ClusterMap<>("farmgate.people",
            new SealedMap.Policy(true, null, true), ONE_BACKUP);
    public static final ClusterMap<MappedRole> GROUP_ROLES = new ClusterMap<>("farmgate.group-roles",
            SealedMap.Policy.DEFAULT, ONE_BACKUP);

    /**
     * The SSH host keys trusted per target: a missing entry lets the next session trust whatever key it is shown, so
     * an entry deleted since a write is not believed, and an old copy put back (a key an admin replaced) is refused.
     */
    public static final ClusterMap<TrustedKey> HOST_KEYS = new ClusterMap<>("farmgate.ssh-host-keys",
            new SealedMap.Policy(true, null, true), ONE_BACKUP);

    /** That the cluster's maps were filled from the database: it grants nothing, and goes with the last node. */
    public static final ClusterMap<Restoration.Restored> RESTORED = new ClusterMap<>("farmgate.restored",
            SealedMap.Policy.GRANTS_NOTHING, ONE_BACKUP);

    static final List<ClusterMap<?>> ALL = List.of(NODES, SESSIONS, USER_SESSIONS, TOKENS, TOKEN_NAMES, SHARES,
            LOGINS, LOGIN_FLOWS, ADDRESSBOOK, ADDRESSBOOK_LEASE, PEOPLE, GROUP_ROLES, HOST_KEYS, RESTORED);

    private ClusterMaps() {
    }
}
