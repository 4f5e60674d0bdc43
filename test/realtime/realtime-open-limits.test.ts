// Limits hold while a realtime session is open (src/application/realtime-usage.ts, src/billing/key-standing-watch.ts),
// on a real service (micro model, the test store pair): a session's audio is admitted slice by slice
// against the allowance, spend cap and credit, so it ends at the limit with its final record and 4402;
// a key revoked or paused while it streams is closed within the watch's poll (plus one decode's
// abort), with the turns already transcribed in `final`, then 4401 or 4402. Metered: the audio billed.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import { KEY_WATCH_INTERVAL_MS } from '../../src/billing/key-standing-watch.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth } from '../helpers/jobs-client.js';
import { connectRealtime, type RealtimeClient, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const HOUR_MICROS_PER_SECOND = 3_600_000_000; // a price of 1 currency unit per audio-second
let svc: TestService;
let speech: Uint8Array;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { logger: { level: 'info', stream: logs.stream } });
  speech = wavPcm(await readFile(await speechWav(12, { seed: 11 })));
});
t.teardown(() => svc?.close());

/** The tenant's realtime seconds in the ledger (read from the store: a revoked key cannot ask the API). */
async function realtimeSeconds(key: { id: string; tenant: string }): Promise<number> {
  const period = billingPeriodAt(Date.now(), await svc.stores.billing.periodStartDay()).label;
  return (await svc.stores.usage.standing(key.tenant, key.id, period)).tenantUsedMs.realtime / 1000;
}

/** Metering is written as the session closes: waits for it to show `seconds`, or returns what it shows after a while. */
async function meteredAfterClose(key: { id: string; tenant: string }, seconds: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  let shown = await realtimeSeconds(key);
  while (shown !== seconds && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    shown = await realtimeSeconds(key);
  }
  return shown;
}

async function started(key: string): Promise<RealtimeClient> {
  const client = await connectRealtime(svc.service.realtime!.url);
  client.start(startMessage(key));
  await client.next('ready');
  return client;
}

/** The events from `final` on, by type: final, then the error, then the close. */
function ending(client: RealtimeClient): string[] {
  const at = client.events.findIndex((e) => e.type === 'final');
  return at < 0 ? [] : client.events.slice(at).map((e) => e.type);
}

t.test('a session reaching the allowance (3.6 s of realtime, no overage) ends there: final for exactly 3.6 s, then 4402', async (t) => {
  const key = await svc.createKey({ tenant: 'rt-allowance', plan: 'builder' });
  await svc.stores.billing.updateKey(key.id, { overrides: { realtimeIncludedMs: 3_600 } });
  const client = await started(key.key);
  await client.stream(speech, { pace: Infinity });
  const closed = await client.closed;
  t.same(closed, { code: 4402, reason: 'BILLING_BLOCKED' });
  t.same(ending(client), ['final', 'error'], 'the final record, then the error that explains the close');
  const final = client.events.find((e) => e.type === 'final')!;
  t.equal(final.audio_seconds, 3.6, 'audio taken: what the allowance had, not the 12 s sent');
  t.equal(client.events.find((e) => e.type === 'error')!.code, 'billing_blocked');
  t.equal(await meteredAfterClose(key, 3.6), 3.6, 'metered: the audio transcribed, nothing beyond the allowance');
  t.same(
    sessionLines(key.id),
    [
      {
        route: 'realtime',
        keyId: key.id,
        tenantId: key.tenant,
        credential: 'api_key',
        closeCode: 4402,
        closeReason: 'BILLING_BLOCKED',
        audioSeconds: 3.6,
        meteredSeconds: 3.6,
        turns: final.turns ? (final.turns as unknown[]).length : 0,
        voiceIds: [],
        billing: 'metered',
        blockReason: 'allowance',
      },
    ],
    "the session's one access-audit line: ids, close, seconds, billing's word; no content",
  );

  const next = await connectRealtime(svc.service.realtime!.url);
  next.start(startMessage(key.key));
  t.equal((await next.next('error')).code, 'billing_blocked', 'the next start is refused before ready');
  t.same(await next.closed, { code: 4402, reason: 'BILLING_BLOCKED' });
  t.match(
    sessionLines(key.id)[1],
    { closeCode: 4402, audioSeconds: 0, meteredSeconds: 0, turns: 0, billing: 'refused', blockReason: 'allowance' },
    'the refused start too',
  );
});

/** The access-audit lines of the key's realtime sessions, as logged (fields of interest only: level, time, pid... dropped). */
function sessionLines(keyId: string): Record<string, unknown>[] {
  return logs
    .lines()
    .filter((l) => l.msg === 'realtime session ended' && l.keyId === keyId)
    .map(({ level: _l, time: _t, pid: _p, hostname: _h, msg: _m, reqId: _r, ...fields }) => fields);
}

t.test('prepaid credit of 2.5 charged seconds: the session ends at 2.5 s, the credit used and never passed', async (t) => {
  const key = await svc.createKey({ tenant: 'rt-credit', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { realtimeIncludedMs: 0, realtimePriceMicros: HOUR_MICROS_PER_SECOND }, addCreditMicros: 2_500_000 });
  const client = await started(key.key);
  await client.stream(speech, { pace: Infinity });
  t.same(await client.closed, { code: 4402, reason: 'BILLING_BLOCKED' });
  t.equal(client.events.find((e) => e.type === 'final')!.audio_seconds, 2.5);
  t.equal(await meteredAfterClose(key, 2.5), 2.5);
  const usage = (await (await fetch(`${svc.url}/v1/usage`, { headers: auth(key.key) })).json()) as { keys: Array<{ credit_left: number }> };
  t.equal(usage.keys[0].credit_left, 0);
});

t.test("a session as long as the key's plan allows (2.5 s here) ends there: final, then 4408 SESSION_TOO_LONG; the next session starts", async (t) => {
  const key = await svc.createKey({ tenant: 'rt-length', plan: 'payg' });
  await svc.stores.billing.updateKey(key.id, { overrides: { realtimeSessionMaxMs: 2_500 } });
  const client = await started(key.key);
  await client.stream(speech, { pace: Infinity });
  t.same(await client.closed, { code: 4408, reason: 'SESSION_TOO_LONG' });
  t.same(ending(client), ['final', 'error']);
  t.equal(client.events.find((e) => e.type === 'final')!.audio_seconds, 2.5);
  t.match(
    client.events.find((e) => e.type === 'error'),
    { code: 'invalid_request', message: /at most 3 seconds of audio on this plan/ },
  );
  t.equal(await meteredAfterClose(key, 2.5), 2.5);
  const next = await started(key.key);
  next.stop();
  t.same(await next.closed, { code: 1000, reason: 'FINAL' }, 'a limit per session, not per key');
});

for (const change of ['revoked', 'paused'] as const) {
  t.test(`a key ${change} while its session streams: closed within the watch's poll, final for the turns transcribed, metering what was billed`, async (t) => {
    const key = await svc.createKey({ tenant: `rt-${change}`, plan: 'payg' });
    const client = await started(key.key);
    // Twice real time: 12 s of speech in 6 s; the change comes 2 s in.
    const streaming = client.stream(speech, { pace: 2, frameMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const changedAt = performance.now();
    if (change === 'revoked') await svc.stores.keys.revoke(key.id);
    else await svc.updateKey(key.id, { billingState: 'paused' });
    const closed = await client.closed;
    const tookMs = performance.now() - changedAt;
    await streaming;
    t.same(closed, change === 'revoked' ? { code: 4401, reason: 'UNAUTHORIZED' } : { code: 4402, reason: 'BILLING_BLOCKED' });
    t.ok(tookMs < KEY_WATCH_INTERVAL_MS + 1_000, `closed ${Math.round(tookMs)} ms after the change (the poll, ${KEY_WATCH_INTERVAL_MS} ms, and an abort)`);
    t.same(ending(client), ['final', 'error']);
    const final = client.events.find((e) => e.type === 'final')!;
    const billed = final.audio_seconds as number;
    t.ok(billed < 12, 'the session did not run on');
    t.equal(await meteredAfterClose(key, billed), billed, 'metered: what the final record was given for');
    t.match(sessionLines(key.id), [{ closeCode: closed.code, audioSeconds: Number, meteredSeconds: billed }], 'its audit line says what was metered');
    t.notMatch(logs.text(), /s-[a-z0-9]{6,}/, 'no client-chosen session_id in the log');
  });
}
