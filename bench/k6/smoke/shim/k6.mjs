// 'k6' for the smoke runner: check and sleep.
import { sample } from './bridge.mjs';

export function check(value, checks, tags) {
    let all = true;
    for (const name of Object.keys(checks)) {
        let ok;
        try {
            ok = Boolean(checks[name](value));
        } catch (e) {
            ok = false;
        }
        sample('checks', 'rate', ok ? 1 : 0, Object.assign({ check: name }, tags || {}));
        all = all && ok;
    }
    return all;
}

export function sleep(seconds) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
}

export default { check: check, sleep: sleep };
