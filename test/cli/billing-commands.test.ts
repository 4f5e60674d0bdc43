// plans, keys update billing flags and usage, run in-process on a fresh data folder (SVC_DATA_DIR, as
// the real commands): the units people type (hours, currency) stored exactly, every refusal, and the
// report in its three forms. test/billing/usage-metering.test.ts reads the report of real work.
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { runKeysCommand } from '../../src/cli/keys-command.js';
import { runPlansCommand } from '../../src/cli/plans-command.js';
import { runUsageCommand } from '../../src/cli/usage-command.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { KyselyBillingSettingsStore } from '../../src/store/kysely/kysely-billing-settings-store.js';
import { KyselyUsageLedger } from '../../src/store/kysely/kysely-usage-ledger.js';
import { sqliteStoreDb } from '../../src/store/kysely/store-db.js';
import { databasePath, openDatabase } from '../../src/store/sqlite/database.js';
import { NO_SAFETY_EVENTS } from '../../src/store/usage-record.js';

type Command = (argv: string[], out: { write(text: string): unknown }) => Promise<void>;

function useDataDir(t: Test): string {
  const dataDir = join(t.testdir(), 'data');
  const saved = process.env.SVC_DATA_DIR;
  process.env.SVC_DATA_DIR = dataDir;
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_DATA_DIR;
    else process.env.SVC_DATA_DIR = saved;
  });
  return dataDir;
}

async function run(command: Command, args: string[]): Promise<string> {
  let text = '';
  await command(args, { write: (chunk: string) => (text += chunk) });
  return text;
}

async function refusal(t: Test, command: Command, args: string[], message: RegExp): Promise<void> {
  const error = await run(command, args).then(
    () => null,
    (e: Error) => e,
  );
  t.ok(error instanceof UsageError, `${args.join(' ')}: a usage error (exit 2)`);
  t.match(error?.message, message);
}

t.test('plans: built-in terms, updates in hours and currency, reset, the start day; refusals', async (t) => {
  const dataDir = useDataDir(t);
  const listed = JSON.parse(await run(runPlansCommand, ['list', '--json']));
  t.same(
    listed.plans.find((p: { plan: string }) => p.plan === 'payg'),
    {
      plan: 'payg',
      batch_included_hours: 25,
      realtime_included_hours: 25,
      batch_price_per_hour: 0.3,
      realtime_price_per_hour: 0.45,
      spend_cap: null,
      realtime_session_max_hours: 4,
      changed: false,
    },
  );
  t.equal(listed.period_start_day, 1);
  const updated = JSON.parse(
    await run(runPlansCommand, ['update', 'builder', '--json', '--batch-hours', '1.5', '--realtime-price', '0.123456', '--spend-cap', '20']),
  );
  t.same(updated, {
    plan: 'builder',
    batch_included_hours: 1.5,
    realtime_included_hours: 25,
    batch_price_per_hour: null,
    realtime_price_per_hour: 0.123456,
    spend_cap: 20,
    realtime_session_max_hours: 2,
  });
  await run(runPlansCommand, ['update', 'builder', '--spend-cap', 'none', '--batch-hours', 'unlimited']);
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  const settings = new KyselyBillingSettingsStore(sqliteStoreDb(db));
  t.same(
    (await settings.planOverrides()).builder,
    { batchIncludedMs: null, realtimePriceMicros: 123_456, spendCapMicros: null },
    'stored exactly, in ms and millionths',
  );
  t.match(await run(runPlansCommand, ['list']), /builder\s+unlimited\s+25\s+none\s+0\.123456\s+none\s+2\s+yes/);
  t.match(await run(runPlansCommand, ['reset', 'builder']), /back to its built-in terms/);
  t.same(await settings.planOverrides(), {});
  t.match(await run(runPlansCommand, ['start-day', '15']), /day 15/);
  t.equal(await settings.periodStartDay(), 15);

  await refusal(t, runPlansCommand, ['update', 'gold', '--batch-hours', '1'], /plan must be one of/);
  await refusal(t, runPlansCommand, ['update', 'payg'], /nothing to change/);
  await refusal(t, runPlansCommand, ['update', 'payg', '--batch-price', 'cheap'], /--batch-price must be a non-negative number/);
  await refusal(t, runPlansCommand, ['update', 'payg', '--batch-hours', '1.1234567'], /up to 6 decimals/);
  await refusal(t, runPlansCommand, ['start-day', '29'], /1 to 28/);
  await refusal(t, runPlansCommand, ['start-day', 'x'], /one day of the month/);
  await refusal(t, runPlansCommand, ['frobnicate'], /usage: npx svc-stt plans/);
});

t.test("keys update: a key's own terms and credit top-ups; unknown keys", async (t) => {
  useDataDir(t);
  const { id } = JSON.parse(await run(runKeysCommand, ['create', '--json', '--tenant', 'clinic']));
  const first = JSON.parse(await run(runKeysCommand, ['update', id, '--json', '--batch-hours', '2', '--add-credit', '10']));
  t.same(first.billing, { terms: { batch_included_hours: 2 }, credit_granted: 10 });
  const second = JSON.parse(await run(runKeysCommand, ['update', id, '--json', '--add-credit', '2.5', '--spend-cap', '3']));
  t.same(second.billing, { terms: { batch_included_hours: 2, spend_cap: 3 }, credit_granted: 12.5 }, 'top-ups add up; terms merge');
  const cleared = JSON.parse(await run(runKeysCommand, ['update', id, '--json', '--clear-terms']));
  t.same(cleared.billing, { terms: {}, credit_granted: 12.5 }, "back to the plan's terms; credit stays");
  await refusal(t, runKeysCommand, ['update', id, '--add-credit', '0'], /positive/);
  const missing = await run(runKeysCommand, ['update', 'key_nothere00000', '--add-credit', '1']).then(
    () => null,
    (e: Error) => e,
  );
  t.match(missing?.message, /no API key/);
});

t.test('usage: table, JSON and CSV of the period; --month; refusals', async (t) => {
  const dataDir = useDataDir(t);
  const { id } = JSON.parse(await run(runKeysCommand, ['create', '--json', '--tenant', 'clinic', '--plan', 'builder']));
  await run(runKeysCommand, ['update', id, '--batch-hours', '0.001']);
  const db = openDatabase(databasePath(dataDir));
  t.teardown(() => db.close());
  const ledger = new KyselyUsageLedger(sqliteStoreDb(db));
  const at = Date.parse('2031-03-10T10:00:00Z');
  const event = {
    tenant: 'clinic',
    keyId: id,
    period: '2031-03',
    atMs: at,
    model: 'svc-medical-1',
    languageFamily: 'en',
    diarization: true,
    vocabulary: false,
    patterns: false,
    safety: NO_SAFETY_EVENTS,
  };
  await ledger.record({ ...event, eventKey: 'inline:a', route: 'inline', audioMs: 3_000 }, { includedMs: 3_600, priceMicrosPerHour: null });
  await ledger.record({ ...event, eventKey: 'job:b', route: 'job', audioMs: 1_500 }, { includedMs: 3_600, priceMicrosPerHour: null });

  const now = Date.parse('2031-03-20T00:00:00Z');
  const json = JSON.parse(await run((argv, out) => runUsageCommand(argv, out, now), ['--json']));
  t.equal(json.period, '2031-03');
  t.equal(json.tenants[0].batch_seconds, 4.5);
  t.same(json.tenants[0].keys[0].blocked.batch, { reason: 'allowance', resets_at: '2031-04-01T00:00:00.000Z' });
  t.same(
    json.tenants[0].keys[0].lines.map((l: { route: string; audio_seconds: number; diarization_seconds: number }) => [
      l.route,
      l.audio_seconds,
      l.diarization_seconds,
    ]),
    [
      ['inline', 3, 3],
      ['job', 1.5, 1.5],
    ],
  );
  const table = await run((argv, out) => runUsageCommand(argv, out, now), []);
  t.match(table, /new batch work is refused: the monthly batch allowance is used and this plan has no overage until 2031-04-01T00:00:00\.000Z/);
  const csv = (await run((argv, out) => runUsageCommand(argv, out, now), ['--csv'])).trim().split('\n');
  t.equal(csv[0].split(',')[8], 'audio_seconds');
  t.same(
    csv.slice(1).map((row) => row.split(',').slice(4, 9)),
    [
      ['inline', 'svc-medical-1', 'en', '1', '3.000'],
      ['job', 'svc-medical-1', 'en', '1', '1.500'],
    ],
  );
  const april = JSON.parse(await run((argv, out) => runUsageCommand(argv, out, now), ['--json', '--month', '2031-04']));
  t.same(april.tenants[0].keys[0].lines, [], 'another month: nothing yet');
  t.equal(april.tenants[0].keys[0].blocked.batch, null, 'and nothing blocks there');
  const other = JSON.parse(await run((argv, out) => runUsageCommand(argv, out, now), ['--json', '--tenant', 'elsewhere']));
  t.same(other.tenants, []);

  await refusal(t, runUsageCommand, ['--month', '2031-13'], /YYYY-MM/);
  await refusal(t, runUsageCommand, ['--json', '--csv'], /choose one/);
  await refusal(t, runUsageCommand, ['extra'], /usage: npx svc-stt usage/);
});
