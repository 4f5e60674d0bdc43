// bench billing-race: `requests` one-second inline requests sent all at once by one key whose allowance
// fits `fits` of them (a plan without overage), on the embedded stores (SQLite, local disk) and on
// PostgreSQL with S3 (the test suite's own server and s3rver): how many were admitted, how many the
// allowance had room for, and what was metered beyond it. Admission reserves a request's measured
// length before it is decoded (src/store/usage-reservation.ts), so the bar is admitted <= allowed and
// 0 s overshoot. Then the cost of reserving on the inline path: a reservation and its release against
// the allowance check it replaced, each timed `checks` times on the same database, as a share of one
// 20 s (--request-seconds) inline request's latency (bar <= 2 %).
//   npm run bench -- billing-race [--requests 64] [--fits 10] [--checks 200] [--stores sqlite,postgres] [--request-seconds 20]
import { readFile } from 'node:fs/promises';

import { UsageBilling } from '../src/billing/usage-billing.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { auth } from '../test/helpers/jobs-client.js';
import { postTranscription, startTestService, type TestService } from '../test/helpers/test-service.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

interface StoreRun {
  store: string;
  admitted: number;
  refused: number;
  allowed: number;
  overshootSeconds: number;
  checkMs: number;
  reserveMs: number;
  requestMs: number;
}

const STORE_PAIRS: Record<string, string> = { sqlite: 'sqlite+local', postgres: 'postgres+s3' };

async function transcribe(svc: TestService, key: string, wav: Uint8Array): Promise<number> {
  const res = await postTranscription(svc.url, key, { model: 'svc-medical-1', response_format: 'json' }, { data: wav, name: 'a.wav', type: 'audio/wav' });
  await res.arrayBuffer();
  return res.status;
}

async function timedMs(times: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const each: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await work(i);
    each.push(performance.now() - t0);
  }
  return median(each);
}

async function runOn(store: string, requests: number, fits: number, checks: number, short: Uint8Array, long: Uint8Array): Promise<StoreRun> {
  process.env.SVC_TEST_STORES = STORE_PAIRS[store];
  const svc = await startTestService({ SVC_RATE_LIMIT_PER_MINUTE: '1000000' });
  try {
    const racer = await svc.createKey({ tenant: 'bench-race', plan: 'builder' });
    await svc.stores.billing.updateKey(racer.id, { overrides: { batchIncludedMs: fits * 1000 } });
    const statuses = await Promise.all(Array.from({ length: requests }, () => transcribe(svc, racer.key, short)));
    const usage = (await (await fetch(`${svc.url}/v1/usage`, { headers: auth(racer.key) })).json()) as { batch_seconds: number };

    // The cost of reserving: on a key with room, the check the inline path made before, and a reservation with its release.
    const roomy = await svc.createKey({ tenant: 'bench-cost', plan: 'payg' });
    const record = (await svc.stores.keys.get(roomy.id))!;
    const billing = new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId);
    const checkMs = await timedMs(checks, () => billing.requireAllowance(record, 'inline', 1000));
    const reserveMs = await timedMs(checks, async (i) => {
      await billing.reserve(record, 'inline', 1000, `inline:bench-${i}`);
      await billing.release(`inline:bench-${i}`);
    });
    await transcribe(svc, roomy.key, long);
    const requestMs = await timedMs(5, () => transcribe(svc, roomy.key, long));
    return {
      store,
      admitted: statuses.filter((s) => s === 200).length,
      refused: statuses.filter((s) => s === 402).length,
      allowed: fits,
      overshootSeconds: Math.max(0, usage.batch_seconds - fits),
      checkMs,
      reserveMs,
      requestMs,
    };
  } finally {
    await svc.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const requests = Number(flag(args, 'requests', '64'));
  const fits = Number(flag(args, 'fits', '10'));
  const checks = Number(flag(args, 'checks', '200'));
  const stores = flag(args, 'stores', 'sqlite,postgres').split(',');
  const short = await readFile(await speechWav(1));
  const requestSeconds = Number(flag(args, 'request-seconds', '20'));
  const long = await readFile(await speechWav(requestSeconds, { seed: 5 }));
  const runs: StoreRun[] = [];
  for (const store of stores) runs.push(await runOn(store, requests, fits, checks, short, long));
  const share = (r: StoreRun) => Math.max(0, r.reserveMs - r.checkMs) / r.requestMs;
  printTable(
    ['store', 'admitted', 'refused', 'allowed', 'overshoot s', 'check ms', 'reserve+release ms', `${requestSeconds} s request ms`, 'reservation cost'],
    runs.map((r) => [
      r.store,
      r.admitted,
      r.refused,
      r.allowed,
      r.overshootSeconds,
      round(r.checkMs, 2),
      round(r.reserveMs, 2),
      round(r.requestMs, 0),
      `${round(100 * share(r), 2)} %`,
    ]),
  );
  console.log(`\n${requests} one-second inline requests at once against an allowance of ${fits} s; bars: admitted <= allowed, overshoot 0 s, cost <= 2 %`);
  printResult('billing-race', {
    admitted: Math.max(...runs.map((r) => r.admitted)),
    allowed: fits,
    overshoot_s: Math.max(...runs.map((r) => r.overshootSeconds)),
    reservation_cost: round(Math.max(...runs.map(share)), 4),
    stores: Object.fromEntries(
      runs.map((r) => [
        r.store,
        {
          admitted: r.admitted,
          refused: r.refused,
          overshoot_s: r.overshootSeconds,
          check_ms: round(r.checkMs, 2),
          reserve_ms: round(r.reserveMs, 2),
          request_ms: round(r.requestMs, 0),
        },
      ]),
    ),
    requests,
    request_seconds: requestSeconds,
  });
}
