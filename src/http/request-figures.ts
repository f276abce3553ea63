// The per-request HTTP series (requests by method, route and status; latency by method and route), counted in
// plain objects as requests end and turned into Prometheus series only when /metrics is read. prom-client's
// labelled Counter and Histogram hash their label objects on every observation, a few microseconds a request.
import type { Metric, Registry } from 'prom-client';
import type { EndedRequest } from './request-end.js';

const LATENCY_BOUNDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const LATENCY = 'ringbase_http_request_duration_seconds';

interface Value { value: number; labels: Record<string, string | number>; metricName?: string }
/** What prom-client's Registry reads from a metric it holds: the same shape its own metrics give. */
interface CollectedMetric { name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; get(): { name: string; help: string; type: string; values: Value[]; aggregator: 'sum' } }

interface RequestCount { method: string; route: string; status: string; count: number }
/** `buckets[i]` counts observations in (LATENCY_BOUNDS[i-1], LATENCY_BOUNDS[i]]; the last, those above every bound. */
interface Latency { method: string; route: string; buckets: number[]; sum: number; count: number }

function collected(name: string, help: string, type: CollectedMetric['type'], values: () => Value[]): CollectedMetric {
  return { name, help, type, aggregator: 'sum', get: () => ({ name, help, type, values: values(), aggregator: 'sum' }) };
}

export class HttpRequestFigures {
  readonly #requests = new Map<string, RequestCount>();
  readonly #latency = new Map<string, Latency>();

  /** Counts one answered request (under the route 'unmatched' when none matched). */
  record({ method, route: pattern, status, elapsedMs }: EndedRequest): void {
    const route = pattern ?? 'unmatched';
    const seconds = elapsedMs / 1000;
    const key = `${method} ${route}`;
    let latency = this.#latency.get(key);
    if (!latency) this.#latency.set(key, latency = { method, route, buckets: new Array<number>(LATENCY_BOUNDS.length + 1).fill(0), sum: 0, count: 0 });
    let bucket = 0;
    while (bucket < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[bucket]!) bucket++;
    latency.buckets[bucket]!++;
    latency.sum += seconds;
    latency.count++;
    const countKey = `${key} ${status}`;
    const counted = this.#requests.get(countKey);
    if (counted) counted.count++;
    else this.#requests.set(countKey, { method, route, status: String(status), count: 1 });
  }

  /** Adds the two series to `registry` under the names and labels the labelled prom-client metrics had. */
  register(registry: Registry): void {
    registry.registerMetric(collected('ringbase_http_requests_total', 'HTTP requests by route and status', 'counter', () =>
      [...this.#requests.values()].map(({ method, route, status, count }) => ({ value: count, labels: { method, route, status } }))) as unknown as Metric);
    registry.registerMetric(collected(LATENCY, 'HTTP request latency by route', 'histogram', () =>
      [...this.#latency.values()].flatMap(({ method, route, buckets, sum, count }): Value[] => {
        let cumulative = 0;
        const bucketValues = LATENCY_BOUNDS.map((le, i) => ({ value: cumulative += buckets[i]!, labels: { le, method, route }, metricName: `${LATENCY}_bucket` }));
        return [
          ...bucketValues,
          { value: count, labels: { le: '+Inf', method, route }, metricName: `${LATENCY}_bucket` },
          { value: sum, labels: { method, route }, metricName: `${LATENCY}_sum` },
          { value: count, labels: { method, route }, metricName: `${LATENCY}_count` },
        ];
      })) as unknown as Metric);
  }
}
