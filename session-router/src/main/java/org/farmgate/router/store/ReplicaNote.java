package org.farmgate.router.store;

import java.io.Serializable;

/**
 * What the owner of an entry tells the members that keep the entry's backups, carried in the backup itself: no
 * message of its own, and it reaches exactly the members that may own the entry next (a backup is promoted when
 * its owner is lost). It arrives from the cluster network, so it must prove itself before it is believed.
 */
public interface ReplicaNote extends Serializable {

    /** Run on a backup member as it stores the owner's decision, with what that member lends. */
    void reached(MemberContext replica);
}
