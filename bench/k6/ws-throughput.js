// WebSocket relay throughput: MAX_VUS sessions attached at once for HOLD_SECS, answering every sync; the guac_bytes
// rate is what the gateway relayed. Point the nodes at a guacd (or bench's SyntheticGuacdMain --flood) that streams.
//   k6 run -e BASE_URL=... -e API_KEY=... -e MAX_VUS=50 -e HOLD_SECS=30 ws-throughput.js
// Thresholds: no session fails, something is relayed, WebSocket connects p95 under WS_CONNECT_P95_MS (1000).
import { checkConfig, config, holdSecs, baseUrl, createSession, attach, deleteSession } from './lib/farmgate.js';

export var options = {
    scenarios: {
        relay: { executor: 'per-vu-iterations', vus: config.maxVus, iterations: 1,
            maxDuration: (holdSecs() + 60) + 's' },
    },
    thresholds: {
        session_failures: ['count==0'],
        ws_connect_ms: ['p(95)<' + (__ENV.WS_CONNECT_P95_MS || '1000')],
        guac_bytes: ['count>0'],
    },
};


export function setup() {
    checkConfig();
}

export default function () {
    var base = baseUrl();
    var session = createSession(base);
    if (!session) {
        return;
    }
    attach(base, session, holdSecs() * 1000, 0);
    deleteSession(base, session);
}
