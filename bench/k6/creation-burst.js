// Creation burst: sessions created at a constant arrival rate (RATE per second for DURATION_SECS), each deleted at
// once. Measures the API and the cluster's placement under a burst, not guacd.
//   k6 run -e BASE_URL=... -e API_KEY=... -e RATE=50 creation-burst.js
import { checkConfig, config, baseUrl, createSession, deleteSession } from './lib/farmgate.js';

var rate = parseInt(__ENV.RATE || '20', 10);
var seconds = config.quick ? 5 : parseInt(__ENV.DURATION_SECS || '60', 10);

export var options = {
    scenarios: {
        burst: {
            executor: 'constant-arrival-rate', rate: rate, timeUnit: '1s', duration: seconds + 's',
            preAllocatedVUs: Math.min(rate * 2, 200), maxVUs: Math.min(rate * 10, 1000),
        },
    },
    thresholds: {
        session_failures: ['count==0'],
        session_create_ms: ['p(95)<250'],
        dropped_iterations: ['count<' + Math.max(1, Math.round(rate * seconds / 100))],
    },
};


export function setup() {
    checkConfig();
}

export default function () {
    var base = baseUrl();
    deleteSession(base, createSession(base));
}
