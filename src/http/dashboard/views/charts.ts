import { html, type Html } from '../html.js';
import { pct } from './svg.js';

export interface Bar { label: string; value: number; /** Shown on hover and read by screen readers. */ title: string }

const HEIGHT = 160;
const AXIS = 22;
const TOP = 18;

/**
 * A bar chart, one bar per label, scaled to the largest value (or to `max` for rates). The first, middle and last
 * labels are written under the axis (all of them do not fit at phone width).
 */
export function barChart(id: string, summary: string, bars: Bar[], opts: { max?: number } = {}): Html {
  const max = opts.max ?? Math.max(1, ...bars.map((b) => b.value));
  const slot = 100 / Math.max(1, bars.length);
  const plot = HEIGHT - AXIS - TOP;
  const labelled = new Set([0, Math.floor((bars.length - 1) / 2), bars.length - 1]);
  return html`<svg class="chart" id="${id}" role="img" aria-label="${summary}" width="100%" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">
    <line x1="0" x2="100%" y1="${TOP + plot}" y2="${TOP + plot}" class="axis"/>
    ${bars.map((b, i) => {
      const h = b.value <= 0 ? 0 : Math.max(2, (b.value / max) * plot);
      const x = i * slot;
      return html`<g class="bar" data-label="${b.label}" data-value="${b.value}"><title>${b.title}</title>
        <rect x="${pct(x + slot * 0.15)}" width="${pct(slot * 0.7)}" y="${TOP + plot - h}" height="${h}"/>
        ${b.value > 0 ? html`<text x="${pct(x + slot / 2)}" y="${TOP + plot - h - 4}" text-anchor="middle" class="value">${b.value}</text>` : ''}
        ${labelled.has(i) ? html`<text x="${pct(x + slot / 2)}" y="${HEIGHT - 6}" text-anchor="${i === 0 ? 'start' : i === bars.length - 1 ? 'end' : 'middle'}">${b.label}</text>` : ''}</g>`;
    })}</svg>`;
}
