// Issue 43 item 3: a client that hangs up before a turn's turn_final has still been given that turn's
// text in its partials, so the audio those partials covered is billed. Otherwise a client reconnecting
// for every turn, reading partials only, would transcribe for free and never use up its allowance.
// On a real service (micro model: the words are noise, but partials come), a `ws` client that streams
// at real time until a partial arrives, then drops the socket without `stop`.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import { unpausedSpeechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, type RealtimeClient, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const BYTES_PER_SECOND = 32_000;
const FRAME_MS = 100;
let svc: TestService;
// 12 s of sentences without a pause: however late a partial comes, the turn is still under way.
let speech: Uint8Array;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { logger: { level: 'info', stream: logs.stream } });
  speech = wavPcm(await readFile(await unpausedSpeechWav(12)));
});
t.teardown(() => svc?.close());

type Key = { key: string; id: string; tenant: string };

async function realtimeSeconds(key: Key): Promise<number> {
  const period = billingPeriodAt(Date.now(), await svc.stores.billing.periodStartDay()).label;
  return (await svc.stores.usage.standing(key.tenant, key.id, period)).tenantUsedMs.realtime / 1000;
}

/** Metering is written after the session closes: waits for the ledger to pass `before`, or returns what it shows after a while. */
async function meteredPast(key: Key, before: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  let shown = await realtimeSeconds(key);
  while (shown <= before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    shown = await realtimeSeconds(key);
  }
  return shown;
}

/** The key's realtime access-audit lines, as logged. */
function sessionLines(keyId: string): Record<string, unknown>[] {
  return logs.lines().filter((l) => l.msg === 'realtime session ended' && l.keyId === keyId);
}

/**
 * Streams at real time until the first partial arrives, then drops the socket (no `stop`, no close
 * handshake). Returns the seconds sent and the furthest end of the partials received.
 */
async function hangUpAfterPartial(client: RealtimeClient): Promise<{ sentSeconds: number; partialEnd: number }> {
  const frame = (BYTES_PER_SECOND * FRAME_MS) / 1000;
  let sent = 0;
  while (sent < speech.length && client.socket.readyState === client.socket.OPEN && !client.events.some((e) => e.type === 'partial')) {
    client.socket.send(speech.subarray(sent, Math.min(speech.length, sent + frame)));
    sent = Math.min(speech.length, sent + frame);
    await new Promise((resolve) => setTimeout(resolve, FRAME_MS));
  }
  client.socket.terminate();
  await client.closed;
  const partials = client.events.filter((e) => e.type === 'partial');
  return { sentSeconds: sent / BYTES_PER_SECOND, partialEnd: Math.max(0, ...partials.map((e) => e.end as number)) };
}

/** Whether the start was answered with `ready` or refused with `error`. */
function readyOrError(client: RealtimeClient): Promise<'ready' | 'error'> {
  return new Promise((resolve, reject) => {
    client.next('ready').then(
      () => resolve('ready'),
      () => {},
    );
    client.next('error').then(
      () => resolve('error'),
      () => {},
    );
    void client.closed.then(() => setImmediate(() => reject(new Error('closed without ready or error'))));
  });
}

async function started(key: string): Promise<RealtimeClient> {
  const client = await connectRealtime(svc.service.realtime!.url);
  client.start(startMessage(key));
  await client.next('ready');
  return client;
}

t.test('a hang-up after partials, before turn_final: the audio the partials covered is metered, and audited as metered', async (t) => {
  const key = await svc.createKey({ tenant: 'rt-hang-up', plan: 'payg' });
  const client = await started(key.key);
  const { sentSeconds, partialEnd } = await hangUpAfterPartial(client);
  t.ok(partialEnd > 0, `a partial covering speech arrived (to ${partialEnd} s of ${sentSeconds} s sent)`);
  t.notOk(
    client.events.some((e) => e.type === 'turn_final'),
    'no turn_final came: only the partials could make this session billable',
  );

  const metered = await meteredPast(key, 0);
  // Both to the millisecond, rounded apart.
  t.ok(metered >= partialEnd - 0.001, `metered ${metered} s: at least the audio the partials covered (to ${partialEnd} s)`);
  t.ok(metered <= sentSeconds, `and no more than was sent (${sentSeconds} s)`);
  const [line] = sessionLines(key.id);
  t.same(
    [line?.closeCode, line?.turns, line?.meteredSeconds, line?.billing],
    [1006, 0, metered, 'metered'],
    "the session's audit line: dropped, no turns, the seconds metered, billing's word",
  );
});

t.test('reconnecting for every turn uses the allowance up: a start is refused once it is spent on partials alone', async (t) => {
  const key = await svc.createKey({ tenant: 'rt-reconnect', plan: 'builder' });
  const allowance = 5;
  await svc.stores.billing.updateKey(key.id, { overrides: { realtimeIncludedMs: allowance * 1000 } });
  let refused: RealtimeClient | null = null;
  for (let session = 1; session <= 16 && !refused; session++) {
    const client = await connectRealtime(svc.service.realtime!.url);
    client.start(startMessage(key.key));
    if ((await readyOrError(client)) === 'error') {
      refused = client;
      break;
    }
    const before = await realtimeSeconds(key);
    await hangUpAfterPartial(client);
    // The last session may reach the allowance before its partial: it ends with its final record.
    const cut = client.events.some((e) => e.type === 'final');
    t.ok(cut || !client.events.some((e) => e.type === 'turn_final'), `session ${session}: partials only${cut ? ', cut at the allowance' : ''}`);
    // The next start is decided on what this one metered, not on its reservation.
    await meteredPast(key, before);
  }
  t.ok(refused, 'a start was refused');
  t.match(refused?.events.at(-1), { type: 'error', code: 'billing_blocked' }, 'for billing, before ready');
  t.same(await refused?.closed, { code: 4402, reason: 'BILLING_BLOCKED' }, 'and closed 4402');
  // Refused once less than a slice's least (1 s) was left: the allowance was spent by metered audio.
  const metered = await realtimeSeconds(key);
  t.ok(metered > allowance - 1 && metered <= allowance, `metered ${metered} s of the ${allowance} s allowance`);
});
