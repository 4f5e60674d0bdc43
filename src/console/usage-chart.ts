// The usage page's chart: audio hours per day of the period, stacked by route (each route's pool
// named beside it), drawn on the server as inline SVG: no script, nothing from another origin, and
// no style attribute (colours come from the console's stylesheet by class). It is one image to
// assistive technology, named by its title and summarised by its description; the page's table
// holds the same figures.
import { MS_PER_HOUR } from '../billing/billing-terms.js';
import { poolOf, USAGE_ROUTES, type UsageRoute } from '../domain/usage-routes.js';
import { type DailyUsage } from '../store/usage-record.js';
import { escapeHtml as e } from './console-http.js';
import { audioText, type AudioUnit, audioUnit, dayText } from './usage-figures.js';

const WIDTH = 720;
const HEIGHT = 260;
const PLOT = { left: 52, right: 8, top: 12, bottom: 28 };
const PLOT_WIDTH = WIDTH - PLOT.left - PLOT.right;
const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;
/** Gridline steps, in hours: the axis takes the smallest that covers the busiest day in four steps. */
const STEPS_H = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];
const GRIDLINES = 4;

/** A gridline's label: hours as exact as the step (0.025 h), or whole seconds. */
function axisText(hours: number, unit: AudioUnit): string {
  return unit === 'h' ? `${Number(hours.toFixed(3))} h` : `${Math.round(hours * 3600)} s`;
}

/** A route as the chart names it: the route and the pool its audio counts in. */
export function seriesName(route: UsageRoute): string {
  return `${route} (${poolOf(route)})`;
}

/** The chart of `rows` over `days` (every day of the period so far, in order) and its legend. */
export function dailyChart(days: readonly string[], rows: readonly DailyUsage[]): string {
  const byDay = new Map<string, Map<UsageRoute, number>>();
  for (const row of rows) {
    const routes = byDay.get(row.day) ?? new Map<UsageRoute, number>();
    routes.set(row.route, (routes.get(row.route) ?? 0) + row.audioMs);
    byDay.set(row.day, routes);
  }
  const dayTotal = (day: string) => [...(byDay.get(day)?.values() ?? [])].reduce((sum, ms) => sum + ms, 0);
  const busiest = days.reduce<string | null>((best, day) => (dayTotal(day) > (best === null ? 0 : dayTotal(best)) ? day : best), null);
  const maxHours = busiest === null ? 0 : dayTotal(busiest) / MS_PER_HOUR;
  const step = STEPS_H.find((s) => s * GRIDLINES >= maxHours) ?? STEPS_H.at(-1)!;
  const top = step * GRIDLINES;
  const totals = USAGE_ROUTES.map((route) => ({ route, ms: rows.filter((row) => row.route === route).reduce((sum, row) => sum + row.audioMs, 0) }));
  const allMs = totals.reduce((sum, total) => sum + total.ms, 0);
  // One unit for every figure of the chart (axis, bars, description, legend), chosen by the largest.
  const unit = audioUnit(allMs, top * MS_PER_HOUR);
  const text = (ms: number) => audioText(ms, unit);
  const y = (hours: number) => PLOT.top + PLOT_HEIGHT - (hours / top) * PLOT_HEIGHT;

  const grid = Array.from({ length: GRIDLINES + 1 }, (_, i) => {
    const hours = step * i;
    const at = y(hours).toFixed(1);
    return `<line class="grid" x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${at}" y2="${at}"/>
<text class="axis" x="${PLOT.left - 6}" y="${at}" dy="4" text-anchor="end">${axisText(hours, unit)}</text>`;
  }).join('\n');

  const slot = PLOT_WIDTH / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const labelEvery = Math.ceil(days.length / 10);
  const bars = days
    .map((day, i) => {
      const x = PLOT.left + i * slot + (slot - barWidth) / 2;
      let stacked = 0;
      const rects = USAGE_ROUTES.filter((route) => (byDay.get(day)?.get(route) ?? 0) > 0).map((route) => {
        const ms = byDay.get(day)!.get(route)!;
        const from = y(stacked / MS_PER_HOUR);
        stacked += ms;
        const to = y(stacked / MS_PER_HOUR);
        const box = `x="${x.toFixed(1)}" y="${to.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0.5, from - to).toFixed(1)}"`;
        return `<rect class="series-${route}" ${box}><title>${e(`${dayText(day)} · ${seriesName(route)}: ${text(ms)}`)}</title></rect>`;
      });
      const label =
        i % labelEvery === 0 ? `<text class="axis" x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${e(dayText(day))}</text>` : '';
      return [...rects, label].join('');
    })
    .join('\n');

  const summary =
    allMs === 0
      ? 'No audio in the period yet.'
      : `${text(allMs)} of audio in the period: ${totals
          .filter((total) => total.ms > 0)
          .map((total) => `${seriesName(total.route)} ${text(total.ms)}`)
          .join(', ')}. The busiest day was ${dayText(busiest!)} with ${text(dayTotal(busiest!))}.`;
  const legend = totals
    .map((total) => `<li><span class="swatch series-${total.route}" aria-hidden="true"></span>${e(seriesName(total.route))}: ${text(total.ms)}</li>`)
    .join('');
  return `<svg class="chart" role="img" aria-labelledby="chart-title chart-desc" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
<title id="chart-title">Audio hours per day of the period, stacked by route</title>
<desc id="chart-desc">${e(summary)}</desc>
${grid}
${bars}
</svg>
<ul class="legend" aria-label="Routes, with their pools and hours in the period">${legend}</ul>`;
}
