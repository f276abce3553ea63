// The HTTP request series counted in plain objects read on /metrics exactly as prom-client's own labelled Counter
// and Histogram would print the same requests.
import t from 'tap';
import { Counter, Histogram, Registry } from 'prom-client';
import { HttpRequestFigures } from '../../src/http/request-figures.js';

const REQUESTS: Array<[string, string, number, number]> = [
  ['GET', '/api/partner/trunks/:id', 200, 0.0004], ['GET', '/api/partner/trunks/:id', 200, 0.001], ['GET', '/api/partner/trunks/:id', 404, 0.0051],
  ['POST', '/api/partner/trunks', 201, 0.3], ['GET', 'unmatched', 404, 7], ['GET', '/route/"quoted"\\', 200, 2.5],
];

t.test('the same text as prom-client\'s labelled counter and histogram', async (t) => {
  const theirs = new Registry();
  const requests = new Counter({ name: 'ringbase_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [theirs] });
  const latency = new Histogram({
    name: 'ringbase_http_request_duration_seconds', help: 'HTTP request latency by route',
    labelNames: ['method', 'route'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [theirs],
  });
  const ours = new Registry();
  const figures = new HttpRequestFigures();
  figures.register(ours);
  t.equal(await ours.metrics(), await theirs.metrics(), 'nothing counted: the same (empty) series');
  for (const [method, route, status, seconds] of REQUESTS) {
    requests.inc({ method, route, status: String(status) });
    latency.observe({ method, route }, seconds);
    figures.record({ method, route: route === 'unmatched' ? null : route, status, elapsedMs: seconds * 1000 });
  }
  t.equal(await ours.metrics(), await theirs.metrics());
  t.equal(await Registry.merge([ours, new Registry()]).metrics(), await theirs.metrics(), 'merged with another registry too');
});
