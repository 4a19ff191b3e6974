// k6/metrics for the smoke runner: samples go to the main thread, which aggregates and checks thresholds.
import { sample } from './bridge.mjs';

function metric(kind) {
    return class {
        constructor(name, isTime) {
            this.name = name;
            sample(name, kind, null, { __declare: isTime ? 'time' : 'default' });
        }

        add(value, tags) {
            sample(this.name, kind, kind === 'rate' ? (value ? 1 : 0) : Number(value), tags);
        }
    };
}

export const Trend = metric('trend');
export const Counter = metric('counter');
export const Rate = metric('rate');
export const Gauge = metric('gauge');
