// The VU side of the smoke runner's bridge: k6 scripts are synchronous (http.get returns the response), Node is not.
// A VU runs in a worker thread and blocks on Atomics.wait while the main thread does the I/O, then reads the answer
// synchronously from its port.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';

const signal = new Int32Array(workerData.signal);
const port = workerData.port;
let seen = Atomics.load(signal, 0);
let nextId = 1;
const inbox = [];

/** Waits up to timeoutMs for anything from the main thread; returns what arrived (maybe nothing). */
export function poll(timeoutMs) {
    if (inbox.length === 0) {
        Atomics.wait(signal, 0, seen, Math.max(0, timeoutMs));
        seen = Atomics.load(signal, 0);
        let m;
        while ((m = receiveMessageOnPort(port)) !== undefined) {
            inbox.push(m.message);
        }
    }
    return inbox.splice(0, inbox.length);
}

/** A blocking call to the main thread; other messages that arrive meanwhile are kept for poll. */
export function call(request, timeoutMs) {
    const id = nextId++;
    parentPort.postMessage(Object.assign({ type: 'call', id: id }, request));
    const deadline = Date.now() + (timeoutMs || 60000);
    for (;;) {
        Atomics.wait(signal, 0, seen, Math.max(1, deadline - Date.now()));
        seen = Atomics.load(signal, 0);
        let m;
        while ((m = receiveMessageOnPort(port)) !== undefined) {
            if (m.message.reply === id) {
                return m.message;
            }
            inbox.push(m.message);
        }
        if (Date.now() >= deadline) {
            throw new Error('no answer from the runner for ' + request.op);
        }
    }
}

export function post(message) {
    parentPort.postMessage(message);
}

export function sample(name, type, value, tags) {
    parentPort.postMessage({ type: 'metric', name: name, kind: type, value: value, tags: tags || {} });
}
