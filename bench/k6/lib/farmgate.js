// Shared by the farmgate k6 scripts: configuration from the environment, the API calls, and a Guacamole client that
// does what guacamole-common-js does (answers every sync, watches for guacd errors). Runs on k6 0.4x and 1.x:
// module k6/ws, no optional chaining, no nullish coalescing.
import http from 'k6/http';
import ws from 'k6/ws';
import { check } from 'k6';
import { Counter, Trend } from 'k6/metrics';

export var sessionCreateMs = new Trend('session_create_ms', true);
export var wsConnectMs = new Trend('ws_connect_ms', true);
export var messages = new Counter('guac_messages');
export var bytes = new Counter('guac_bytes');
export var failures = new Counter('session_failures');

function env(name, fallback) {
    var value = __ENV[name];
    return value === undefined || value === '' ? fallback : value;
}

export var config = {
    baseUrls: env('BASE_URL', 'http://127.0.0.1:8080').split(',').map(function (u) { return u.trim().replace(/\/+$/, ''); }),
    apiKey: env('API_KEY', ''),
    protocol: env('PROTOCOL', 'rdp'),
    targetHost: env('TARGET_HOST', '127.0.0.1'),
    targetPort: parseInt(env('TARGET_PORT', '3389'), 10),
    targetUser: env('TARGET_USER', 'bench'),
    targetPassword: env('TARGET_PASSWORD', 'bench'),
    maxVus: parseInt(env('MAX_VUS', '100'), 10),
    holdSecs: parseInt(env('HOLD_SECS', '60'), 10),
    quick: env('QUICK', '') === '1',
};

/**
 * Call from each script's setup(): k6 archive and k6 inspect run the init code without the environment, so a check
 * there would make the archive step itself fail.
 */
export function checkConfig() {
    if (!config.apiKey) {
        throw new Error('API_KEY is required (a token with the poweruser or admin role)');
    }
}

/** Stages in seconds; QUICK=1 shrinks each to a tenth (at least 1 s) for a smoke run. */
export function stages(list) {
    return list.map(function (s) {
        var secs = config.quick ? Math.max(1, Math.round(s[0] / 10)) : s[0];
        return { duration: secs + 's', target: s[1] };
    });
}

export function holdSecs() {
    return config.quick ? Math.min(config.holdSecs, 5) : config.holdSecs;
}

/** Each VU talks to one node of the list, so a list spreads the load as a plain balancer would. */
export function baseUrl() {
    return config.baseUrls[(__VU - 1) % config.baseUrls.length];
}

function headers() {
    return { headers: { 'Authorization': 'Bearer ' + config.apiKey, 'Content-Type': 'application/json' } };
}

export function createSession(base) {
    var body = JSON.stringify({
        session_type: config.protocol, hostname: config.targetHost, port: config.targetPort,
        username: config.targetUser, password: config.targetPassword, width: 1024, height: 768,
    });
    var res = http.post(base + '/api/sessions', body, headers());
    var ok = check(res, { 'session created (201)': function (r) { return r.status === 201; } });
    if (!ok) {
        failures.add(1, { stage: 'create' });
        return null;
    }
    sessionCreateMs.add(res.timings.duration);
    return res.json();
}

export function deleteSession(base, session) {
    if (session) {
        http.del(base + '/api/sessions/' + session.session_id, null, headers());
    }
}

export function ticket(base) {
    var res = http.post(base + '/api/ws-ticket', null, headers());
    if (res.status !== 200) {
        failures.add(1, { stage: 'ticket' });
        return null;
    }
    return res.json().ticket;
}

/** Splits a Guacamole message into instructions; element lengths count code points, as guacd counts them. */
export function parseInstructions(text) {
    var out = [];
    var i = 0;
    var current = [];
    while (i < text.length) {
        var dot = text.indexOf('.', i);
        if (dot < 0) {
            break;
        }
        var length = parseInt(text.substring(i, dot), 10);
        var end = dot + 1;
        for (var n = 0; n < length; n++) {
            var c = text.charCodeAt(end);
            end += c >= 0xD800 && c <= 0xDBFF ? 2 : 1;
        }
        current.push(text.substring(dot + 1, end));
        var terminator = text.charAt(end);
        i = end + 1;
        if (terminator === ';') {
            out.push(current);
            current = [];
        }
    }
    return out;
}

function element(value) {
    var s = String(value);
    return Array.from(s).length + '.' + s;
}

export function encode(parts) {
    return parts.map(element).join(',') + ';';
}

/**
 * Opens the tunnel of a created session and stays for holdMs: answers every sync, optionally sends mouse moves,
 * and counts as failed a guacd error, a disconnect or a close before the hold ends.
 */
export function attach(base, session, holdMs, mouseEveryMs) {
    var t = ticket(base);
    if (!t) {
        return false;
    }
    var url = base.replace(/^http/, 'ws') + session.ws_url + '?ticket=' + encodeURIComponent(t);
    var started = Date.now();
    var first = true;
    var failed = false;
    var held = false;
    var res = ws.connect(url, { headers: { 'Sec-WebSocket-Protocol': 'guacamole' } }, function (socket) {
        socket.on('message', function (data) {
            if (first) {
                wsConnectMs.add(Date.now() - started);
                first = false;
            }
            messages.add(1);
            bytes.add(data.length);
            var instructions = parseInstructions(data);
            for (var k = 0; k < instructions.length; k++) {
                var op = instructions[k][0];
                if (op === 'sync') {
                    socket.send(encode(['sync', instructions[k][1]]));
                } else if (op === 'error') {
                    failed = true;
                    failures.add(1, { stage: 'guacd', status: instructions[k][2] });
                    socket.close();
                } else if (op === 'disconnect') {
                    failed = true;
                    failures.add(1, { stage: 'disconnect' });
                    socket.close();
                }
            }
        });
        if (mouseEveryMs > 0) {
            socket.setInterval(function () {
                socket.send(encode(['mouse', Math.floor(Math.random() * 1024), Math.floor(Math.random() * 768), 0]));
            }, mouseEveryMs);
        }
        socket.setTimeout(function () {
            held = true;
            socket.close();
        }, holdMs);
        socket.on('close', function () {
            if (!held && !failed) {
                failed = true;
                failures.add(1, { stage: 'closed-early' });
            }
        });
        socket.on('error', function (e) {
            if (!failed) {
                failed = true;
                failures.add(1, { stage: 'ws-error' });
            }
        });
    });
    var upgraded = check(res, { 'tunnel opened (101)': function (r) { return r && r.status === 101; } });
    if (!upgraded && !failed) {
        failures.add(1, { stage: 'upgrade' });
        return false;
    }
    return !failed;
}
