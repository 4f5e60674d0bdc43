// svc-stt usage [--tenant T] [--month YYYY-MM] [--json|--csv]: a period's usage per tenant and key
// (audio-hours by route and model, overage, cost, cap, credit left), and which limit blocks new
// work and when it lifts. CSV: one row per key, route, model and language family, for chargeback.
import { parseArgs } from 'node:util';

import { blockDescription } from '../billing/billing-errors.js';
import { billingPeriodAt, billingPeriodNamed } from '../billing/billing-period.js';
import { MS_PER_HOUR } from '../billing/billing-terms.js';
import { type UsageReport, usageReport } from '../billing/usage-report.js';
import { usageReportJson } from '../billing/usage-report-json.js';
import { USAGE_POOLS } from '../domain/usage-routes.js';
import { withUsageStores } from './admin-stores.js';
import { hours, money, seconds } from './billing-amounts.js';
import type { CommandOutput } from './command-output.js';
import { textTable } from './text-table.js';
import { UsageError } from './usage-error.js';

const USAGE = 'usage: npx svc-stt usage [--tenant T] [--month YYYY-MM] [--json|--csv]   (default: the current period, every tenant)';

export async function runUsageCommand(argv: string[], out: CommandOutput = process.stdout, nowMs = Date.now()): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { tenant: { type: 'string' }, month: { type: 'string' }, json: { type: 'boolean', default: false }, csv: { type: 'boolean', default: false } },
      allowPositionals: false,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.json && values.csv) throw new UsageError(`--json and --csv: choose one\n${USAGE}`);
  const report = await withUsageStores(async ({ keys, ledger, billing, settings }) => {
    const startDay = await settings.periodStartDay();
    const period = values.month === undefined ? billingPeriodAt(nowMs, startDay) : billingPeriodNamed(values.month, startDay);
    if (period === null) throw new UsageError(`--month must be YYYY-MM\n${USAGE}`);
    return usageReport({ ledger, billing, keys: await keys.list(values.tenant) }, period, values.tenant);
  });
  if (values.json) out.write(`${JSON.stringify(usageReportJson(report))}\n`);
  else if (values.csv) out.write(csvOf(report));
  else out.write(tableOf(report));
}

function tableOf(report: UsageReport): string {
  const head = `period ${report.period.label}: ${new Date(report.period.startMs).toISOString()} to ${new Date(report.period.endMs).toISOString()}\n`;
  if (report.tenants.length === 0) return `${head}no keys and no usage\n`;
  const keys = report.tenants.flatMap((tenant) =>
    tenant.keys.map((k) => [
      tenant.tenant,
      k.key.id,
      k.key.plan,
      `${hours(tenant.usedMs.batch)}/${hours(k.terms.batchIncludedMs)}`,
      `${hours(tenant.usedMs.realtime)}/${hours(k.terms.realtimeIncludedMs)}`,
      hours(k.audioMs.batch + k.audioMs.realtime),
      hours(k.overageMs),
      money(k.costMicros),
      money(k.terms.spendCapMicros),
      money(k.creditLeftMicros),
      USAGE_POOLS.filter((pool) => k.blocked[pool] !== null)
        .map((pool) => `${pool}:${k.blocked[pool]}`)
        .join(' ') || '-',
    ]),
  );
  const lines = report.tenants.flatMap((tenant) =>
    tenant.keys.flatMap((k) =>
      k.lines.map((line) => [
        tenant.tenant,
        k.key.id,
        line.route,
        line.model,
        line.languageFamily,
        line.units,
        seconds(line.audioMs),
        hours(line.audioMs),
        hours(line.overageMs),
        money(line.costMicros),
      ]),
    ),
  );
  const blocks = report.tenants.flatMap((tenant) =>
    tenant.keys.flatMap((k) =>
      USAGE_POOLS.flatMap((pool) => {
        const reason = k.blocked[pool];
        return reason === null
          ? []
          : [
              `${k.key.id} (${tenant.tenant}): new ${pool} work is refused: ${blockDescription(reason, pool, k.resetsAtMs[pool])}` +
                `${k.resetsAtMs[pool] === null ? ' (an operator must act)' : ''}\n`,
            ];
      }),
    ),
  );
  return (
    head +
    textTable(['tenant', 'key', 'plan', 'tenant batch h/incl', 'tenant realtime h/incl', 'key h', 'overage h', 'cost', 'cap', 'credit left', 'blocked'], keys) +
    (lines.length > 0 ? `\n${textTable(['tenant', 'key', 'route', 'model', 'language', 'units', 'audio s', 'audio h', 'overage h', 'cost'], lines)}` : '') +
    (blocks.length > 0 ? `\n${blocks.join('')}` : '')
  );
}

const CSV_HEADER = [
  'period',
  'tenant',
  'key_id',
  'plan',
  'route',
  'model',
  'language_family',
  'units',
  'audio_seconds',
  'audio_hours',
  'overage_hours',
  'cost',
  'diarization_seconds',
  'vocabulary_seconds',
  'patterns_seconds',
  'vocabulary_fallbacks',
  'suspect_insertions',
  'review_required',
  'unsupported_language',
];

function csvOf(report: UsageReport): string {
  const rows = report.tenants.flatMap((tenant) =>
    tenant.keys.flatMap((k) =>
      k.lines.map((line) => [
        report.period.label,
        tenant.tenant,
        k.key.id,
        k.key.plan,
        line.route,
        line.model,
        line.languageFamily,
        line.units,
        seconds(line.audioMs),
        (line.audioMs / MS_PER_HOUR).toFixed(6),
        (line.overageMs / MS_PER_HOUR).toFixed(6),
        money(line.costMicros),
        seconds(line.diarizationMs),
        seconds(line.vocabularyMs),
        seconds(line.patternsMs),
        line.safety.vocabularyFallbacks,
        line.safety.suspectInsertions,
        line.safety.reviewRequired,
        line.safety.unsupportedLanguage,
      ]),
    ),
  );
  return [CSV_HEADER, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

/** Tenants and ids are restricted to [A-Za-z0-9_.:-], but a cell is quoted whenever it could need it. */
function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
