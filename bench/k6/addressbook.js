// Address-book reads: one reader one request after the other, then CONCURRENCY readers at once. The first
// request may load the book from Vault; every later one must come from the cluster's cache.
//   k6 run -e BASE_URL=... -e API_KEY=... -e CONCURRENCY=20 addressbook.js
// Thresholds: p95 under SERIAL_P95_MS (10) one at a time, under CONCURRENT_P95_MS (50) concurrently.
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import { checkConfig, config, baseUrl } from './lib/farmgate.js';

var readMs = new Trend('addressbook_ms', true);
var concurrency = parseInt(__ENV.CONCURRENCY || '20', 10);
var seconds = config.quick ? 5 : 30;

export var options = {
    scenarios: {
        serial: { executor: 'per-vu-iterations', vus: 1, iterations: config.quick ? 20 : 200, maxDuration: '60s',
            tags: { mode: 'serial' } },
        concurrent: { executor: 'constant-vus', vus: concurrency, duration: seconds + 's',
            startTime: config.quick ? '6s' : '65s', tags: { mode: 'concurrent' } },
    },
    thresholds: {
        'addressbook_ms{mode:serial}': ['p(95)<' + (__ENV.SERIAL_P95_MS || '10')],
        'addressbook_ms{mode:concurrent}': ['p(95)<' + (__ENV.CONCURRENT_P95_MS || '50')],
        checks: ['rate==1'],
    },
};


export function setup() {
    checkConfig();
}

export default function () {
    var res = http.get(baseUrl() + '/api/addressbook', { headers: { 'Authorization': 'Bearer ' + config.apiKey } });
    check(res, { 'address book (200)': function (r) { return r.status === 200; } });
    readMs.add(res.timings.duration);
}
