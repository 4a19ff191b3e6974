package org.farmgate.node.api;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.farmgate.durable.SessionRow;

/**
 * Session history as CSV: rustguac's twelve columns first, in its order, so that its users' sheets keep working,
 * then the cluster's. Safe to open in a spreadsheet: a cell that would start with {@code =}, {@code +}, {@code -},
 * {@code @}, a tab or a carriage return (a formula, or DDE) gets a leading {@code '} (OWASP's advice, which rustguac
 * does not follow); cells with a comma, quote or line break are quoted (RFC 4180).
 */
final class SessionsCsv {

    static final String HEADER = "Session ID,Type,Hostname,Username,User,Entry,Folder,Started,Ended,Duration (secs),"
            + "Status,Recording,Node,Client address,End reason,Ended by,Bytes to client,Bytes from client,Watchers\r\n";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private SessionsCsv() {
    }

    static void append(StringBuilder out, SessionRow row) {
        cell(out, row.sessionId(), false);
        cell(out, row.sessionType(), false);
        cell(out, row.hostname(), false);
        cell(out, row.username(), false);
        cell(out, row.createdBy(), false);
        cell(out, row.displayName() != null ? row.displayName() : row.entry(), false);
        cell(out, row.folder(), false);
        cell(out, time(row.startedAt()), false);
        cell(out, time(row.endedAt()), false);
        cell(out, row.durationSecs() == null ? null : row.durationSecs().toString(), false);
        cell(out, row.status(), false);
        cell(out, row.recordingFile(), false);
        cell(out, row.nodeId(), false);
        cell(out, row.clientAddress(), false);
        cell(out, row.endReason(), false);
        cell(out, row.endedBy(), false);
        cell(out, row.bytesToClient() == null ? null : row.bytesToClient().toString(), false);
        cell(out, row.bytesFromClient() == null ? null : row.bytesFromClient().toString(), false);
        cell(out, Integer.toString(row.watchers()), true);
    }

    /** One cell, defused and quoted as needed. */
    static void cell(StringBuilder out, String value, boolean last) {
        if (value != null && !value.isEmpty()) {
            String text = value;
            char first = text.charAt(0);
            if (first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r') {
                text = "'" + text;
            }
            if (text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\n') >= 0
                    || text.indexOf('\r') >= 0) {
                out.append('"').append(text.replace("\"", "\"\"")).append('"');
            } else {
                out.append(text);
            }
        }
        out.append(last ? "\r\n" : ",");
    }

    private static String time(Instant at) {
        return at == null ? null : TIME.format(at);
    }
}
