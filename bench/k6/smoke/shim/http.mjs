// 'k6/http' for the smoke runner: synchronous requests, done by the main thread, with k6's response shape and its
// built-in metrics (http_reqs, http_req_duration, http_req_failed: any status outside 200-399).
import { call, sample } from './bridge.mjs';

function request(method, url, body, params) {
    const headers = (params && params.headers) || {};
    const answer = call({ op: 'http', method: method, url: url, body: body === null || body === undefined ? null
        : String(body), headers: headers }, 65000);
    const failed = !(answer.status >= 200 && answer.status < 400);
    sample('http_reqs', 'counter', 1, {});
    sample('http_req_duration', 'trend', answer.duration, {});
    sample('http_req_failed', 'rate', failed ? 1 : 0, {});
    return {
        status: answer.status,
        body: answer.body,
        error: answer.error || '',
        timings: { duration: answer.duration },
        json: function () { return JSON.parse(answer.body); },
    };
}

export function get(url, params) { return request('GET', url, null, params); }
export function post(url, body, params) { return request('POST', url, body, params); }
export function put(url, body, params) { return request('PUT', url, body, params); }
export function del(url, body, params) { return request('DELETE', url, body, params); }

export default { get: get, post: post, put: put, del: del, request: request };
