#!/usr/bin/env node
// A smoke runner for the k6 scripts in bench/k6, for machines where k6 cannot be installed: it runs a script's
// scenarios (ramping-vus, constant-vus, per-vu-iterations, constant-arrival-rate) with Node worker threads as VUs,
// shims k6, k6/http, k6/ws and k6/metrics, and checks the script's thresholds. It is not k6: it exists so that the
// scripts' logic (API calls, the Guacamole exchange, failure detection, thresholds) is exercised against a real
// cluster. Usage: node bench/k6/smoke/run.mjs SCRIPT [-e NAME=VALUE ...]; exit 99 when a threshold fails, as k6.
// Needs the ws package: npm install --prefix bench/target/k6-smoke ws@8
import { Worker, MessageChannel } from 'node:worker_threads';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.K6_SMOKE_MODULES || path.resolve(here, '../../target/k6-smoke/node_modules');
const WebSocket = createRequire(path.join(modules, 'noop.js'))('ws');

const args = process.argv.slice(2);
const env = Object.assign({}, process.env);
let scriptArg = null;
for (let i = 0; i < args.length; i++) {
    if (args[i] === '-e') {
        const [k, ...v] = args[++i].split('=');
        env[k] = v.join('=');
    } else {
        scriptArg = args[i];
    }
}
if (!scriptArg) {
    console.error('usage: node run.mjs SCRIPT [-e NAME=VALUE ...]');
    process.exit(2);
}

// The scripts, copied with their k6 imports pointed at the shims.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'k6-smoke-'));
const source = path.dirname(path.resolve(scriptArg));
function copy(from, to) {
    fs.mkdirSync(to, { recursive: true });
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
        if (entry.isDirectory() && entry.name !== 'smoke') {
            copy(path.join(from, entry.name), path.join(to, entry.name));
        } else if (entry.isFile() && entry.name.endsWith('.js')) {
            const text = fs.readFileSync(path.join(from, entry.name), 'utf8').replace(
                /from\s+'k6(\/(http|ws|metrics))?'/g, function (m, sub, name) {
                    return "from '" + pathToFileURL(path.join(here, 'shim', (name || 'k6') + '.mjs')).href + "'";
                });
            fs.writeFileSync(path.join(to, entry.name), text);
        }
    }
}
copy(source, work);
process.on('exit', function () { fs.rmSync(work, { recursive: true, force: true }); });
fs.writeFileSync(path.join(work, 'package.json'), '{"type":"module"}');
const script = pathToFileURL(path.join(work, path.basename(scriptArg))).href;

// Metrics, as the VUs report them.
const metrics = new Map();
function record(name, kind, value, tags) {
    let m = metrics.get(name);
    if (!m) {
        m = { kind: kind, time: false, samples: [] };
        metrics.set(name, m);
    }
    if (tags && tags.__declare) {
        m.time = m.time || tags.__declare === 'time';
        return;
    }
    if (value !== null) {
        m.samples.push({ value: value, tags: tags || {} });
    }
}

let nextSocket = 1;
const sockets = new Map();
const errors = new Map();

class Vu {
    constructor(id, scenario, probe) {
        this.id = id;
        this.scenario = scenario;
        this.iter = 0;
        this.busy = false;
        this.signal = new SharedArrayBuffer(4);
        const channel = new MessageChannel();
        this.port = channel.port1;
        this.worker = new Worker(path.join(here, 'vu.mjs'), {
            workerData: { vu: id, env: probe && probe.env ? probe.env : env, script: script, signal: this.signal,
                port: channel.port2, setup: Boolean(probe && probe.setup) },
            transferList: [channel.port2],
        });
        this.ready = new Promise((resolve, reject) => {
            this.worker.on('message', (m) => this.onMessage(m, resolve, reject));
            this.worker.on('error', reject);
        });
    }

    deliver(message) {
        this.port.postMessage(message);
        const signal = new Int32Array(this.signal);
        Atomics.add(signal, 0, 1);
        Atomics.notify(signal, 0);
    }

    onMessage(m, resolve, reject) {
        if (m.type === 'ready') {
            resolve(m.options);
        } else if (m.type === 'failed') {
            reject(new Error(m.error));
        } else if (m.type === 'metric') {
            record(m.name, m.kind, m.value, Object.assign({ scenario: this.scenario ? this.scenario.name : '' },
                this.scenario ? this.scenario.tags : {}, m.tags));
        } else if (m.type === 'iterated') {
            this.busy = false;
            record('iterations', 'counter', 1, { scenario: this.scenario.name });
            record('iteration_duration', 'trend', m.duration, { scenario: this.scenario.name });
            if (m.error) {
                const first = m.error.split('\n')[0];
                errors.set(first, (errors.get(first) || 0) + 1);
            }
            if (this.onIdle) {
                this.onIdle();
            }
        } else if (m.type === 'call') {
            this.call(m).then((answer) => this.deliver(Object.assign({ reply: m.id }, answer)));
        } else if (m.type === 'ws.send') {
            const s = sockets.get(m.socket);
            if (s && s.readyState === WebSocket.OPEN) {
                s.send(m.data);
            }
        } else if (m.type === 'ws.close') {
            const s = sockets.get(m.socket);
            if (s) {
                s.close();
            }
        }
    }

    async call(m) {
        if (m.op === 'http') {
            const started = performance.now();
            try {
                const response = await fetch(m.url, { method: m.method, headers: m.headers,
                    body: m.body === null ? undefined : m.body, signal: AbortSignal.timeout(60000) });
                const body = await response.text();
                return { status: response.status, body: body, duration: performance.now() - started };
            } catch (e) {
                return { status: 0, body: '', error: String(e), duration: performance.now() - started };
            }
        }
        if (m.op === 'ws.open') {
            return new Promise((resolve) => {
                const protocols = m.headers['Sec-WebSocket-Protocol'];
                const headers = Object.assign({}, m.headers);
                delete headers['Sec-WebSocket-Protocol'];
                const id = nextSocket++;
                const s = new WebSocket(m.url, protocols ? [protocols] : [], { headers: headers });
                let open = false;
                s.on('unexpected-response', (req, res) => resolve({ ok: false, status: res.statusCode }));
                s.on('open', () => {
                    open = true;
                    sockets.set(id, s);
                    resolve({ ok: true, socket: id });
                });
                s.on('message', (data) => this.deliver({ type: 'ws.message', socket: id, data: data.toString() }));
                s.on('error', (e) => {
                    if (!open) {
                        resolve({ ok: false, status: 0, error: String(e) });
                    } else {
                        this.deliver({ type: 'ws.error', socket: id, error: String(e) });
                    }
                });
                s.on('close', (code) => {
                    sockets.delete(id);
                    if (open) {
                        this.deliver({ type: 'ws.closed', socket: id, code: code });
                    }
                });
            });
        }
        return { error: 'unknown op ' + m.op };
    }

    iterate() {
        this.busy = true;
        this.worker.postMessage({ type: 'iterate', iter: this.iter++ });
    }

    async stop() {
        if (this.busy) {
            await new Promise((resolve) => { this.onIdle = resolve; });
        }
        await this.worker.terminate();
    }
}

function seconds(duration) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(duration || '0s'));
    if (!m) {
        throw new Error('cannot read the duration ' + duration);
    }
    return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs VUs in a loop while wanted(vuIndex, elapsed) says so, until the end; then lets iterations finish. */
async function loop(scenario, maxVus, wanted, endSeconds, maxIterationsPerVu) {
    const vus = [];
    const began = Date.now();
    for (;;) {
        const elapsed = (Date.now() - began) / 1000;
        if (elapsed >= endSeconds) {
            break;
        }
        for (let i = 0; i < maxVus; i++) {
            if (wanted(i + 1, elapsed)) {
                if (!vus[i]) {
                    vus[i] = new Vu(i + 1, scenario);
                    await vus[i].ready;
                }
                if (!vus[i].busy && (!maxIterationsPerVu || vus[i].iter < maxIterationsPerVu)) {
                    vus[i].iterate();
                }
            }
        }
        if (maxIterationsPerVu && vus.length === maxVus && vus.every((v) => v && !v.busy
                && v.iter >= maxIterationsPerVu)) {
            break;
        }
        await sleep(50);
    }
    await Promise.all(vus.filter(Boolean).map((v) => v.stop()));
}

async function arrivals(scenario, s) {
    const perSecond = s.rate / seconds(s.timeUnit || '1s');
    const duration = seconds(s.duration);
    const pool = [];
    for (let i = 0; i < (s.preAllocatedVUs || 1); i++) {
        pool.push(new Vu(i + 1, scenario));
    }
    await Promise.all(pool.map((v) => v.ready));
    const began = Date.now();
    let started = 0;
    while ((Date.now() - began) / 1000 < duration) {
        const due = Math.floor((Date.now() - began) / 1000 * perSecond);
        while (started < due) {
            started++;
            let vu = pool.find((v) => !v.busy);
            if (!vu && pool.length < (s.maxVUs || pool.length)) {
                vu = new Vu(pool.length + 1, scenario);
                pool.push(vu);
                await vu.ready;
            }
            if (vu) {
                vu.iterate();
            } else {
                record('dropped_iterations', 'counter', 1, { scenario: scenario.name });
            }
        }
        await sleep(5);
    }
    await Promise.all(pool.map((v) => v.stop()));
}

function rampTarget(start, stages, t) {
    let from = start;
    let at = 0;
    for (const stage of stages) {
        const d = seconds(stage.duration);
        if (t < at + d) {
            return from + (stage.target - from) * (d === 0 ? 1 : (t - at) / d);
        }
        from = stage.target;
        at += d;
    }
    return from;
}

async function runScenario(name, s) {
    const scenario = { name: name, tags: s.tags || {} };
    await sleep(seconds(s.startTime || '0s') * 1000);
    switch (s.executor) {
        case 'ramping-vus': {
            const total = s.stages.reduce((sum, st) => sum + seconds(st.duration), 0);
            const max = Math.max(s.startVUs || 0, ...s.stages.map((st) => st.target));
            return loop(scenario, max, (i, t) => rampTarget(s.startVUs || 0, s.stages, t) >= i - 0.5, total, 0);
        }
        case 'constant-vus':
            return loop(scenario, s.vus, () => true, seconds(s.duration), 0);
        case 'per-vu-iterations':
            return loop(scenario, s.vus, () => true, seconds(s.maxDuration || '10m'), s.iterations || 1);
        case 'constant-arrival-rate':
            return arrivals(scenario, s);
        default:
            throw new Error('the smoke runner does not know the executor ' + s.executor);
    }
}

function aggregate(m, stat, sinceSeconds) {
    const values = m.samples.map((x) => x.value);
    if (m.kind === 'counter') {
        const sum = values.reduce((a, b) => a + b, 0);
        return stat === 'rate' ? sum / sinceSeconds : sum;
    }
    if (m.kind === 'rate') {
        return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
    }
    if (m.kind === 'gauge') {
        return values.length === 0 ? 0 : values[values.length - 1];
    }
    const sorted = values.slice().sort((a, b) => a - b);
    if (sorted.length === 0) {
        return 0;
    }
    const p = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q / 100 * sorted.length) - 1))];
    const pm = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
    if (pm) {
        return p(Number(pm[1]));
    }
    return { avg: sorted.reduce((a, b) => a + b, 0) / sorted.length, min: sorted[0], max: sorted[sorted.length - 1],
        med: p(50) }[stat];
}

function selected(key) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key);
    const base = metrics.get(m[1]) || { kind: 'counter', samples: [] };
    if (!m[2]) {
        return base;
    }
    const filters = m[2].split(',').map((f) => f.split(':').map((x) => x.trim()));
    return Object.assign({}, base, { samples: base.samples.filter((x) => filters.every((f) => String(x.tags[f[0]]) === f[1])) });
}

// k6 archive and k6 inspect evaluate the init code without the run's environment: it must not fail there.
const bare = new Vu(0, null, { env: {} });
try {
    await bare.ready;
} catch (e) {
    console.error('the init code fails without the environment (k6 archive would fail):\n' + e.message);
    process.exit(107);
}
await bare.worker.terminate();
// With the environment: the init code, then setup() once, as k6 runs them before the first iteration.
const probe = new Vu(0, null, { setup: true });
let options;
try {
    options = await probe.ready;
} catch (e) {
    console.error('the script failed to load or its setup() failed:\n' + e.message);
    process.exit(107);
}
await probe.worker.terminate();
let scenarios = options.scenarios;
if (!scenarios) {
    scenarios = options.stages ? { default: { executor: 'ramping-vus', startVUs: 0, stages: options.stages } }
        : { default: { executor: 'per-vu-iterations', vus: options.vus || 1, iterations: options.iterations || 1 } };
}
const began = Date.now();
await Promise.all(Object.keys(scenarios).map((name) => runScenario(name, scenarios[name])));
const elapsed = (Date.now() - began) / 1000;

console.log('\nsmoke run of ' + path.basename(scriptArg) + ' (not k6: bench/k6/smoke) in ' + elapsed.toFixed(1) + ' s');
for (const [name, m] of [...metrics.entries()].sort()) {
    const stats = m.kind === 'trend' ? ['avg', 'med', 'p(95)', 'max'].map((s) => s + '=' + aggregate(m, s).toFixed(2))
        : m.kind === 'counter' ? ['count=' + aggregate(m, 'count'), 'rate=' + aggregate(m, 'rate', elapsed).toFixed(2) + '/s']
            : ['rate=' + aggregate(m, 'rate').toFixed(4) + ' of ' + m.samples.length];
    console.log('  ' + name.padEnd(26) + stats.join('  '));
}
let failed = false;
for (const key of Object.keys(options.thresholds || {})) {
    for (const expression of options.thresholds[key]) {
        const t = /^\s*(avg|min|max|med|count|rate|value|p\(\d+(?:\.\d+)?\))\s*(<=|>=|===|==|!=|<|>)\s*(-?[\d.]+)\s*$/
            .exec(typeof expression === 'string' ? expression : expression.threshold);
        if (!t) {
            throw new Error('the smoke runner cannot read the threshold ' + JSON.stringify(expression));
        }
        const actual = aggregate(selected(key), t[1], elapsed);
        const limit = Number(t[3]);
        const ok = { '<': actual < limit, '<=': actual <= limit, '>': actual > limit, '>=': actual >= limit,
            '==': actual === limit, '===': actual === limit, '!=': actual !== limit }[t[2]];
        failed = failed || !ok;
        console.log((ok ? '  ✓ ' : '  ✗ ') + key + ' ' + t[0].trim() + ' (' + Number(actual.toFixed(3)) + ')');
    }
}
for (const [error, count] of errors) {
    console.log('  script error ×' + count + ': ' + error);
}
process.exit(failed ? 99 : 0);
