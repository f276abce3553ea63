import { html, type Html } from '../html.js';
import type { TimelineEntry } from '../../../store/calls.js';
import { causeInWords, describeEvent } from './timeline.js';
import { pct } from './svg.js';

/** One bar of the waterfall: a span of time (start..end) or an instant (end equal to start). */
interface Step { kind: 'webhook' | 'prompt' | 'keys' | 'call' | 'callback' | 'error'; label: string; start: number; end: number }

const ROW = 34;
const AXIS = 24;
/** The narrowest bar drawn, in percent, so an instant stays visible. */
const MIN_WIDTH = 0.8;

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/**
 * The call's timeline as steps on a time axis: a webhook fetch spans its request to its reply, a prompt runs
 * until the next verb or the end, the call is connected from answer to hang-up; keys and callbacks are instants.
 */
export function stepsOf(entries: TimelineEntry[]): Step[] {
  const at = (e: TimelineEntry) => Date.parse(e.at);
  const steps: Step[] = [];
  const open = new Map<string, Step>();
  const close = (key: string, t: number) => { const s = open.get(key); if (s) { s.end = t; open.delete(key); } };
  for (const e of entries) {
    const t = at(e);
    const d = e.detail;
    switch (e.kind) {
      case 'webhook-request': {
        const s: Step = { kind: 'webhook', label: 'Webhook', start: t, end: t };
        steps.push(s); open.set('webhook', s); break;
      }
      case 'webhook-reply': {
        const s = open.get('webhook');
        close('webhook', t);
        if (s) s.label = d.error !== undefined ? 'Webhook failed' : `Webhook ${String(d.status)} in ${num(d.latency_ms)} ms`;
        break;
      }
      case 'verb': {
        close('verb', t);
        // A Dial is drawn from its own entries (dialling, then bridged), which name the party.
        if (d.verb === 'dial') break;
        const s: Step = { kind: 'prompt', label: describeEvent(e.kind, d), start: t, end: t };
        steps.push(s); open.set('verb', s); break;
      }
      case 'digits': case 'ivr-key': steps.push({ kind: 'keys', label: describeEvent(e.kind, d), start: t, end: t }); break;
      case 'answered': {
        const s: Step = { kind: 'call', label: 'Connected', start: t, end: t };
        steps.push(s); open.set('call', s); break;
      }
      case 'dial': {
        const s: Step = { kind: 'call', label: describeEvent(e.kind, d), start: t, end: t };
        steps.push(s); open.set('dial', s); break;
      }
      case 'dial-answered': close('dial', t); steps.push({ kind: 'call', label: 'Bridged to the dialled party', start: t, end: t }); break;
      case 'status-callback': case 'recording-callback':
        steps.push({ kind: 'callback', label: describeEvent(e.kind, d), start: t - num(d.latency_ms), end: t }); break;
      case 'application-error': case 'markup-error': steps.push({ kind: 'error', label: describeEvent(e.kind, d), start: t, end: t }); break;
      case 'ended':
        for (const key of [...open.keys()]) close(key, t);
        steps.push({ kind: 'call', label: `Hung up ${causeInWords(d.cause)}`, start: t, end: t }); break;
      default: break;
    }
  }
  return steps;
}

/** The waterfall as SVG: one row per step, its label above its bar, seconds from the first entry on the axis. */
export function waterfall(entries: TimelineEntry[]): Html {
  const steps = stepsOf(entries);
  if (steps.length === 0) return html`<p>Nothing to draw: no webhook fetches, prompts, keys or hang-up were recorded.</p>`;
  const origin = Math.min(...steps.map((s) => s.start));
  const span = Math.max(1, Math.max(...steps.map((s) => s.end)) - origin);
  const x = (t: number) => ((t - origin) / span) * 100;
  const height = steps.length * ROW + AXIS;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<svg class="waterfall" id="waterfall" role="img" aria-label="Waterfall of the call: ${steps.length} steps over ${(span / 1000).toFixed(1)} s"
    width="100%" height="${height}" xmlns="http://www.w3.org/2000/svg">
    ${ticks.map((f) => html`<line class="grid" x1="${pct(f * 100)}" x2="${pct(f * 100)}" y1="0" y2="${height - AXIS}"/>
      <text class="tick" x="${pct(f * 100)}" y="${height - 6}" text-anchor="${f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}">${((f * span) / 1000).toFixed(2)} s</text>`)}
    ${steps.map((s, i) => {
      const left = Math.min(x(s.start), 100 - MIN_WIDTH);
      const width = Math.max(MIN_WIDTH, x(s.end) - left);
      const ms = s.end - s.start;
      return html`<g class="step ${s.kind}" data-kind="${s.kind}"><title>${s.label}${ms > 0 ? ` (${ms} ms)` : ''}</title>
        <text x="0" y="${i * ROW + 13}">${s.label}</text>
        <rect x="${pct(left)}" width="${pct(width)}" y="${i * ROW + 18}" height="10" rx="2"/></g>`;
    })}</svg>`;
}
