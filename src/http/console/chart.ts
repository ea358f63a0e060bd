// The usage chart as server-rendered SVG (no script; it prints). Bars are requests per hour, the
// darker part its errors.
import type { UsageSeries } from '../../admin/service.ts';
import { type Html, html } from './html.ts';

type ChartSeries = Pick<UsageSeries, 'hours' | 'requests' | 'errors'>;

/** Widths of the two drawings: a laptop's, and a phone's (so labels stay about 10 px high there too). */
const WIDE = 840;
const NARROW = 380;
const H = 180;
const PAD = { left: 40, right: 8, top: 10, bottom: 28 };

function drawing(series: ChartSeries, W: number, label: string, className: string): Html {
  const n = series.hours.length;
  const max = Math.max(1, ...series.requests);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const barW = plotW / Math.max(1, n);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const w = Math.max(1, barW - 0.5).toFixed(1);
  const bar = (cls: string, i: number, v: number, title: string | null = null) =>
    html`<rect class="${cls}" x="${(PAD.left + i * barW).toFixed(1)}" y="${y(v).toFixed(1)}" width="${w}" height="${(plotH - (y(v) - PAD.top)).toFixed(1)}">${title !== null && html`<title>${title}</title>`}</rect>`;
  const bars = series.requests.map((r, i) => {
    const e = series.errors[i] ?? 0;
    const title = `${series.hours[i] ?? ''}:00 UTC: ${count(r, 'request')}, ${count(e, 'error')}`;
    return html`${r > 0 && bar('req', i, r, title)}${r > 0 && e > 0 && bar('err', i, e)}`;
  });
  // A label at each day's start (hour 00).
  const days = series.hours.map(
    (h, i) =>
      h.endsWith('T00') &&
      html`<line class="day" x1="${(PAD.left + i * barW).toFixed(1)}" x2="${(PAD.left + i * barW).toFixed(1)}" y1="${PAD.top}" y2="${PAD.top + plotH}"></line><text x="${(PAD.left + i * barW + 2).toFixed(1)}" y="${H - 10}">${h.slice(5, 10)}</text>`,
  );
  return html`<svg class="${className}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}" preserveAspectRatio="none">
<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}"></line>
<text x="4" y="${PAD.top + 10}">${max}</text><text x="4" y="${PAD.top + plotH}">0</text>
${days}${bars}</svg>`;
}

/** "1 request", "2 requests". */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function usageChart(series: ChartSeries, title: string): Html {
  const n = series.hours.length;
  const total = series.requests.reduce((a, b) => a + b, 0);
  const errors = series.errors.reduce((a, b) => a + b, 0);
  const label = `${title}: ${count(total, 'request')}, ${count(errors, 'error')} over the last ${n} hours`;
  return html`<figure class="chart">${drawing(series, WIDE, label, 'wide')}${drawing(series, NARROW, label, 'narrow')}<figcaption>${title}: <strong data-total-requests="${total}">${total}</strong> ${total === 1 ? 'request' : 'requests'}, <strong data-total-errors="${errors}">${errors}</strong> ${errors === 1 ? 'error' : 'errors'} (status ≥ 400) in the last ${n / 24 >= 1 ? `${Math.round(n / 24)} days` : `${n} hours`}, per hour, UTC.</figcaption></figure>`;
}
