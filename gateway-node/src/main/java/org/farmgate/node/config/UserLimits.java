package org.farmgate.node.config;

import org.farmgate.model.DisplaySize;
import org.farmgate.router.SessionQuota;

/**
 * What one user (one token) may hold across the cluster: pending and active sessions, the memory they reserve, and
 * the largest display a session may ask for. Without the last two a user within the session count could still
 * reserve most of the cluster with a few huge pending displays.
 */
public record UserLimits(int sessions, long memoryMb, int maxWidth, int maxHeight) {

    public SessionQuota.Limits quota() {
        return new SessionQuota.Limits(sessions, memoryMb);
    }

    /** The display asked for, no larger than allowed (clamped, as every display bound is, never refused). */
    public DisplaySize bound(DisplaySize asked) {
        if (asked.width() <= maxWidth && asked.height() <= maxHeight) {
            return asked;
        }
        return new DisplaySize(Math.min(asked.width(), maxWidth), Math.min(asked.height(), maxHeight), asked.dpi());
    }
}
