// 'k6/ws' for the smoke runner: ws.connect blocks until the socket closes, running the script's handlers and
// timers in between, as k6's event loop does for a VU.
import { call, poll, post } from './bridge.mjs';

export function connect(url, params, callback) {
    const opened = call({ op: 'ws.open', url: url, headers: (params && params.headers) || {} }, 30000);
    if (!opened.ok) {
        return { status: opened.status || 0, error: opened.error };
    }
    const handlers = {};
    const timers = [];
    let closed = false;
    const socket = {
        on: function (event, fn) { handlers[event] = fn; },
        send: function (data) { if (!closed) { post({ type: 'ws.send', socket: opened.socket, data: String(data) }); } },
        close: function () { if (!closed) { post({ type: 'ws.close', socket: opened.socket }); } },
        setTimeout: function (fn, ms) { timers.push({ at: Date.now() + ms, fn: fn, every: 0 }); },
        setInterval: function (fn, ms) { timers.push({ at: Date.now() + ms, fn: fn, every: Math.max(1, ms) }); },
    };
    callback(socket);
    if (handlers.open) {
        handlers.open();
    }
    while (!closed) {
        const next = timers.reduce(function (m, t) { return Math.min(m, t.at); }, Date.now() + 1000);
        for (const event of poll(next - Date.now())) {
            if (event.socket !== opened.socket) {
                continue;
            }
            if (event.type === 'ws.message' && handlers.message) {
                handlers.message(event.data);
            } else if (event.type === 'ws.error' && handlers.error) {
                handlers.error({ error: function () { return event.error; } });
            } else if (event.type === 'ws.closed') {
                closed = true;
                if (handlers.close) {
                    handlers.close(event.code);
                }
            }
        }
        const now = Date.now();
        for (const t of timers.slice()) {
            if (!closed && t.at <= now) {
                if (t.every) {
                    t.at = now + t.every;
                } else {
                    timers.splice(timers.indexOf(t), 1);
                }
                t.fn();
            }
        }
    }
    return { status: 101 };
}

export default { connect: connect };
