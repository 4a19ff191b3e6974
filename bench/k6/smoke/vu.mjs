// One virtual user of the smoke runner: imports the script with the k6 shims and runs its default function when told.
import { parentPort, workerData } from 'node:worker_threads';

globalThis.__ENV = workerData.env;
globalThis.__VU = workerData.vu;
globalThis.__ITER = 0;

let script;
try {
    script = await import(workerData.script);
} catch (e) {
    parentPort.postMessage({ type: 'failed', error: String((e && e.stack) || e) });
}
if (script && workerData.setup && typeof script.setup === 'function') {
    try {
        script.setup();
    } catch (e) {
        parentPort.postMessage({ type: 'failed', error: String((e && e.stack) || e) });
        script = null;
    }
}
if (script) {
    parentPort.on('message', function (m) {
        if (m.type === 'iterate') {
            globalThis.__ITER = m.iter;
            const started = Date.now();
            let error = null;
            try {
                script.default();
            } catch (e) {
                error = String((e && e.stack) || e);
            }
            parentPort.postMessage({ type: 'iterated', duration: Date.now() - started, error: error });
        } else if (m.type === 'stop') {
            parentPort.close();
        }
    });
    parentPort.postMessage({ type: 'ready', options: JSON.parse(JSON.stringify(script.options || {})) });
}
