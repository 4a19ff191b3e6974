// Session ramp, as rustguac's scale test but stricter: 0 -> 10 -> 25 -> 50 -> 75 -> MAX_VUS sessions, hold, down.
// Each VU creates a session, opens its tunnel, answers every sync, moves the mouse, holds HOLD_SECS, deletes it.
//   k6 run -e BASE_URL=http://n1:8080,http://n2:8080 -e API_KEY=... -e PROTOCOL=rdp -e TARGET_HOST=... session-ramp.js
import { checkConfig, config, stages, holdSecs, baseUrl, createSession, attach, deleteSession } from './lib/farmgate.js';

var steps = [[30, 10], [30, 25], [30, 50], [30, 75], [30, config.maxVus], [config.holdSecs, config.maxVus], [30, 0]]
    .filter(function (s) { return s[1] <= config.maxVus; });

export var options = {
    scenarios: {
        ramp: { executor: 'ramping-vus', startVUs: 0, stages: stages(steps), gracefulRampDown: '30s' },
    },
    thresholds: {
        session_failures: ['count==0'],
        session_create_ms: ['p(95)<500'],
        ws_connect_ms: ['p(95)<1000'],
        http_req_failed: ['rate<0.01'],
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
    attach(base, session, holdSecs() * 1000, 200);
    deleteSession(base, session);
}
