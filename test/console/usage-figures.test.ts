// Issue 50: the usage page wrote '22.2 s' beside '0.01 h'. Audio is now written in one unit per
// table, chart or sentence, chosen by its largest figure (src/console/usage-figures.ts): seconds up to
// a tenth of an hour, hours above. The chart (src/console/usage-chart.ts) holds to one unit throughout.
import t from 'tap';

import { dailyChart } from '../../src/console/usage-chart.js';
import { audioText, audioUnit, hoursText } from '../../src/console/usage-figures.js';
import type { DailyUsage } from '../../src/store/usage-record.js';

const row = (day: string, route: DailyUsage['route'], audioMs: number): DailyUsage => ({
  tenant: 't',
  day,
  route,
  pool: route === 'realtime' ? 'realtime' : 'batch',
  units: 1,
  audioMs,
});

t.test('the unit follows the largest figure; every figure of a group is written in it', async (t) => {
  t.equal(audioUnit(22_200, 30_000), 's', 'half a minute: seconds');
  t.equal(audioUnit(22_200, 360_000), 's', 'a tenth of an hour still in seconds');
  t.equal(audioUnit(22_200, 361_000), 'h', 'above it, hours');
  t.equal(audioUnit(), 's', 'no figure');
  const unit = audioUnit(22_200, 4 * 3_600_000);
  t.same([audioText(22_200, unit), audioText(4 * 3_600_000, unit), audioText(0, unit)], ['0.01 h', '4.00 h', '0.00 h']);
  t.equal(audioText(4_000, 'h'), 'under 0.01 h', 'a little is not written as none');
  t.same([audioText(22_200, 's'), audioText(0, 's')], ['22.2 s', '0.0 s']);
  t.same([hoursText(4_000), hoursText(90_000_000)], ['4.0 s', '25.00 h'], 'a figure alone takes its own');
});

/** Every audio figure written in the chart's text (axis, bar titles, description, legend). */
function figures(svg: string): string[] {
  const text = svg.replace(/<[^>]+>/g, ' ').replaceAll('&lt;', '<');
  return [...text.matchAll(/(?:under )?\d+(?:\.\d+)? [sh]\b/g)].map((m) => m[0]);
}

t.test('the chart: one unit for its axis, bars, description and legend', async (t) => {
  const days = ['2026-11-01', '2026-11-02'];
  const small = figures(dailyChart(days, [row(days[0], 'inline', 22_200), row(days[1], 'job', 40_000)]));
  t.ok(small.length > 5, small.join(' | '));
  t.ok(
    small.every((f) => f.endsWith(' s')),
    `a minute of audio: seconds throughout (${small.join(', ')})`,
  );
  t.ok(small.includes('22.2 s') && small.includes('40.0 s'));
  const large = figures(dailyChart(days, [row(days[0], 'inline', 22_200), row(days[1], 'job', 2 * 3_600_000)]));
  t.ok(
    large.every((f) => f.endsWith(' h')),
    `two hours of audio: hours throughout, the 22.2 s as 0.01 h (${large.join(', ')})`,
  );
  t.ok(large.includes('0.01 h') && large.includes('2.00 h'));
});
