package org.farmgate.node.guacd;

import java.util.List;

/**
 * Guacamole protocol versions this gateway speaks. Answering guacd's own version in {@code connect} makes guacd use
 * its current protocol; a version we do not know is newer than ours, so we answer our newest, as Apache Guacamole's
 * client does.
 */
enum ProtocolVersion {
    VERSION_1_0_0,
    VERSION_1_1_0,
    VERSION_1_3_0,
    VERSION_1_5_0;

    static final ProtocolVersion LATEST = VERSION_1_5_0;

    /** The version to answer when guacd offers {@code offered} as the first element of {@code args}. */
    static ProtocolVersion answerTo(String offered) {
        for (ProtocolVersion version : values()) {
            if (version.name().equals(offered)) {
                return version;
            }
        }
        return offered.startsWith("VERSION_") ? LATEST : VERSION_1_0_0;
    }

    /** {@code timezone} exists since 1.1.0. */
    boolean sendsTimezone() {
        return compareTo(VERSION_1_1_0) >= 0;
    }

    /** {@code name} is sent from 1.5.0 on (as Apache's client does). */
    boolean sendsName() {
        return compareTo(VERSION_1_5_0) >= 0;
    }

    /** guacd 1.0.0 did not announce a version: every element of {@code args} is an argument name. */
    static boolean announcesVersion(List<String> args) {
        return !args.isEmpty() && args.get(0).startsWith("VERSION_");
    }
}
