// Inline work that ends before its answer is delivered, on a real service (micro model, 120 s of
// speech allowed inline, keys read again every 100 ms): a client that goes away mid-transcription
// stops it and is billed nothing (a streamed answer notices a closed connection by its keep-alive
// writes; a plain one notices a reset: a half-close alone is a client still waiting, see
// src/api/node-http-server.ts); a key revoked or paused mid-transcription gets 401 or 402 within the
// key watch's poll, and nothing is metered. Metered seconds are those of a transcription that
// completed, never those of one stopped.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';

import t from 'tap';

import { billingPeriodAt } from '../../src/billing/billing-period.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

const KEY_WATCH_MS = 100;
let svc: TestService;
let long: Uint8Array;

t.before(async () => {
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '120', SVC_KEY_WATCH_MS: String(KEY_WATCH_MS) });
  long = await readFile(await speechWav(120, { seed: 9 }));
});
t.teardown(() => svc?.close());

/** The key's tenant's batch seconds in the ledger, and whether any of its reservations is still held. */
async function ledger(key: { id: string; tenant: string }): Promise<{ metered: number; reserved: boolean }> {
  const period = billingPeriodAt(Date.now(), await svc.stores.billing.periodStartDay()).label;
  const recorded = (await svc.stores.usage.standing(key.tenant, key.id, period)).tenantUsedMs.batch;
  let counted = 0;
  const holder = { instance: svc.service.instanceId };
  await svc.stores.usage.reserve({ key: 'probe', tenant: key.tenant, keyId: key.id, period, pool: 'batch', audioMs: 0, holder, atMs: Date.now() }, (s) => {
    counted = s.tenantUsedMs.batch;
    return { refused: 'probe' };
  });
  return { metered: recorded / 1000, reserved: counted !== recorded };
}

/** Waits until nothing is reserved for the key any more (the stopped work released it). */
async function settled(key: { id: string; tenant: string }): Promise<{ metered: number; reserved: boolean }> {
  const deadline = Date.now() + 30_000;
  let state = await ledger(key);
  while (state.reserved && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await ledger(key);
  }
  return state;
}

/** Resolves once the key's audio is reserved: its transcription has started. */
async function transcribing(key: { id: string; tenant: string }): Promise<void> {
  while (!(await ledger(key)).reserved) await new Promise((resolve) => setTimeout(resolve, 10));
}

const fields = (extra: Record<string, string> = {}) => ({ model: 'svc-medical-1', response_format: 'json', ...extra });
const file = () => ({ data: long, name: 'visit.wav', type: 'audio/wav' });

t.test('a client whose connection is reset while its answer is computed stops it, and is billed nothing', async (t) => {
  const key = await svc.createKey({ tenant: 'hang-up-plain' });
  const form = new FormData();
  for (const [name, value] of Object.entries(fields())) form.append(name, value);
  form.append('file', new Blob([long as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
  const encoded = new Request(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const { hostname, port, host } = new URL(svc.url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(
    `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key.key}\r\n` +
      `Content-Type: ${encoded.headers.get('content-type')}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body);
  // The upload goes, then the transcription of 120 s starts: the client leaves in its middle.
  await transcribing(key);
  socket.resetAndDestroy();
  const state = await settled(key);
  t.notOk(state.reserved, 'its reservation was released');
  t.equal(state.metered, 0, 'nothing metered: the transcription was stopped');
});

t.test('a streamed answer whose client leaves after its first event stops, and is billed nothing', async (t) => {
  const key = await svc.createKey({ tenant: 'hang-up-stream' });
  const abort = new AbortController();
  const res = await postTranscription(svc.url, key.key, fields({ stream: 'true' }), file(), {}, undefined, abort.signal);
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  t.match(new TextDecoder().decode(first.value), /transcript\.text\.delta|keep-alive/, 'the stream began');
  abort.abort();
  const state = await settled(key);
  t.notOk(state.reserved);
  t.equal(state.metered, 0, 'nothing metered: the client left before the transcription completed');
});

for (const change of ['revoked', 'paused'] as const) {
  t.test(`a key ${change} while its inline answer is computed is answered ${change === 'revoked' ? 401 : 402} at once, with nothing metered`, async (t) => {
    const key = await svc.createKey({ tenant: `inline-${change}` });
    const answer = postTranscription(svc.url, key.key, fields(), file());
    await transcribing(key);
    const changedAt = performance.now();
    if (change === 'revoked') await svc.stores.keys.revoke(key.id);
    else await svc.updateKey(key.id, { billingState: 'paused' });
    const res = await answer;
    const tookMs = performance.now() - changedAt;
    const body = (await res.json()) as { error: { code: string } };
    if (change === 'revoked') t.equal(res.status, 401);
    else t.match({ status: res.status, code: body.error.code }, { status: 402, code: 'billing_blocked' });
    t.ok(tookMs < KEY_WATCH_MS + 1_000, `answered ${Math.round(tookMs)} ms after the change (the poll: ${KEY_WATCH_MS} ms)`);
    if (change === 'paused') await svc.updateKey(key.id, { billingState: 'active' });
    const state = await settled(key);
    t.equal(state.metered, 0, 'nothing metered');
  });
}
