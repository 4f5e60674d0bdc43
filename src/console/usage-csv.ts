// The usage page's CSV: one row per UTC day, route and pool of the period, audio in seconds (to the
// millisecond) and hours. Numbers and the ledger's category words only: no transcript, no file name.
import { MS_PER_HOUR } from '../billing/billing-terms.js';
import type { DailyUsage } from '../store/usage-record.js';

export const DAILY_CSV_HEADER = ['period', 'day', 'route', 'pool', 'units', 'audio_seconds', 'audio_hours'];

export function dailyUsageCsv(period: string, daily: readonly DailyUsage[]): string {
  const rows = daily.map((d) => [period, d.day, d.route, d.pool, String(d.units), (d.audioMs / 1000).toFixed(3), (d.audioMs / MS_PER_HOUR).toFixed(6)]);
  return [DAILY_CSV_HEADER, ...rows].map((row) => `${row.join(',')}\r\n`).join('');
}
