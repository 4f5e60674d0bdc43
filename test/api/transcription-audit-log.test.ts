// A transcription request's line in the access audit log (docs/OPERATIONS.md "Access audit log"), on the real
// service: its key, tenant, route and status, the audio's measured length and what billing made of it
// (metered with the seconds the ledger holds, refused with the reason, not metered), and exactly one
// line however the request ended, a client closing a stream after its first event or hanging up
// mid-upload included. No line holds the key, the file name, the prompt or the transcript.
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';

import t, { type Test } from 'tap';

import type { CreateKeyOptions } from '../../src/store/key-store.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { auth } from '../helpers/jobs-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

type LogLine = Record<string, unknown>;

const ROUTE = '/v1/audio/transcriptions';
const FILENAME = 'audit-canary-usage-line.wav';
const PROMPT = 'Patient Xandrelle Oquavine, renal clinic';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let short: Uint8Array; // 4 s: inline
let long: Uint8Array; // 120 s: inline, four windows decoded one after another on the one worker
const BOUNDARY_SECONDS = 130; // audio longer than this becomes a job

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: String(BOUNDARY_SECONDS) }, { logger: { level: 'info', stream: logs.stream } });
  short = await readFile(await speechWav(4));
  long = await readFile(await speechWav(120));
  recordCanary('filename', FILENAME);
  recordCanary('transcript', PROMPT);
});
t.teardown(async () => {
  await svc.close();
  logs.stream.end();
});

async function newKey(tenant: string, plan?: CreateKeyOptions['plan']) {
  const key = await svc.createKey({ tenant, ...(plan ? { plan } : {}) });
  recordCanary('api_key', key.key);
  return key;
}

/** The lines of a key's requests to the route, once one is there and a moment later (a second line would be in by then). */
async function linesOf(keyId: string): Promise<LogLine[]> {
  const of = () => logs.lines().filter((l) => l.route === ROUTE && l.keyId === keyId);
  const until = Date.now() + 20_000;
  while (of().length === 0 && Date.now() < until) await sleep(50);
  await sleep(300);
  return of();
}

/** The seconds the ledger holds for a key's tenant (each test has a tenant of its own). */
async function batchSecondsOf(key: string): Promise<number> {
  const res = await fetch(`${svc.url}/v1/usage`, { headers: auth(key) });
  return ((await res.json()) as { batch_seconds: number }).batch_seconds;
}

const fieldsOf = (extra: Record<string, string> = {}) => ({ model: 'svc-medical-1', language: 'en', response_format: 'json', prompt: PROMPT, ...extra });

const transcribe = (key: string, audio: Uint8Array, extra: Record<string, string> = {}, signal?: AbortSignal) =>
  postTranscription(svc.url, key, fieldsOf(extra), { data: audio, name: FILENAME, type: 'audio/wav' }, {}, undefined, signal);

/** What the line says billing did agrees with the ledger: what was metered is what the tenant used. */
async function agreesWithLedger(t: Test, line: LogLine, key: string) {
  const used = await batchSecondsOf(key);
  if (line.billing === 'metered') t.equal(line.meteredSeconds, used, `metered ${String(line.meteredSeconds)} s, as the ledger holds`);
  else t.equal(used, 0, `${String(line.billing)}: nothing in the ledger`);
}

t.test('an inline answer: its key, tenant, status, audio length and the seconds metered, and no other field', async (t) => {
  const key = await newKey('tenant-line-inline');
  const res = await transcribe(key.key, short);
  t.equal(res.status, 200);
  recordCanary('transcript', ((await res.json()) as { text: string }).text.trim());
  const lines = await linesOf(key.id);
  if (!t.equal(lines.length, 1, 'one line')) return;
  const [line] = lines;
  t.match(line, {
    msg: 'request completed',
    reqId: res.headers.get('x-request-id'),
    method: 'POST',
    statusCode: 200,
    keyId: key.id,
    tenantId: 'tenant-line-inline',
    audioSeconds: 4,
    billing: 'metered',
    meteredSeconds: 4,
  });
  t.same(
    Object.keys(line).sort(),
    [
      'audioSeconds',
      'billing',
      'hostname',
      'keyId',
      'level',
      'meteredSeconds',
      'method',
      'msg',
      'pid',
      'reqId',
      'responseTime',
      'route',
      'statusCode',
      'tenantId',
      'time',
    ],
    'these fields and no others',
  );
  await agreesWithLedger(t, line, key.key);
});

t.test('a billing refusal: refused, with the reason, and the length when it was measured', async (t) => {
  // An allowance of 1 s on a plan without overage: a 4 s recording is refused once measured...
  const tight = await newKey('tenant-line-allowance', 'builder');
  await svc.stores.billing.updateKey(tight.id, { overrides: { batchIncludedMs: 1_000 } });
  // ...and with none left at all, before its upload is read.
  const none = await newKey('tenant-line-no-allowance', 'builder');
  await svc.stores.billing.updateKey(none.id, { overrides: { batchIncludedMs: 0 } });
  for (const key of [tight, none]) {
    const res = await transcribe(key.key, short);
    t.equal(res.status, 402);
    await res.body?.cancel();
  }
  const [measured] = await linesOf(tight.id);
  t.match(measured, { statusCode: 402, keyId: tight.id, tenantId: 'tenant-line-allowance', audioSeconds: 4, billing: 'refused', blockReason: 'allowance' });
  t.notOk('meteredSeconds' in (measured ?? {}), 'nothing metered');
  const [early] = await linesOf(none.id);
  t.match(early, { statusCode: 402, keyId: none.id, tenantId: 'tenant-line-no-allowance', billing: 'refused', blockReason: 'allowance' });
  t.notOk('audioSeconds' in (early ?? {}), 'refused before its audio was read: no length');
  await agreesWithLedger(t, measured, tight.key);
});

t.test('a stream the client closes after its first event: one line, the status sent, closed early, and the billing outcome', async (t) => {
  const key = await newKey('tenant-line-stream');
  const abort = new AbortController();
  const res = await transcribe(key.key, long, { stream: 'true' }, abort.signal);
  t.equal(res.status, 200);
  const requestId = res.headers.get('x-request-id');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  while (!received.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    received += decoder.decode(value, { stream: true });
  }
  const first = JSON.parse(received.split('\n\n')[0].slice('data: '.length)) as { type: string; delta?: string };
  t.equal(first.type, 'transcript.text.delta', 'the first event is a delta');
  if (first.delta?.trim()) recordCanary('transcript', first.delta.trim());
  abort.abort();

  const lines = await linesOf(key.id);
  if (!t.equal(lines.length, 1, 'one line')) return;
  const [line] = lines;
  t.match(line, {
    msg: 'request completed',
    reqId: requestId,
    statusCode: 200,
    clientClosedEarly: true,
    keyId: key.id,
    tenantId: 'tenant-line-stream',
    audioSeconds: 120,
  });
  t.ok(['metered', 'not_metered'].includes(line.billing as string), `billing: ${String(line.billing)}`);
  t.same(
    logs.lines().filter((l) => l.reqId === requestId),
    [line],
    'no other line for the request',
  );
  await agreesWithLedger(t, line, key.key);
});

t.test('a client that hangs up mid-upload: one line, no status sent, closed early, not metered', async (t) => {
  const key = await newKey('tenant-line-hang-up');
  const form = new FormData();
  for (const [name, value] of Object.entries(fieldsOf())) form.append(name, value);
  form.append('file', new Blob([long as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), FILENAME);
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const { hostname, port } = new URL(svc.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  const head = [
    `POST ${ROUTE} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${key.key}`,
    `Content-Type: ${encoded.headers.get('content-type')}`,
    `Content-Length: ${body.length}`,
  ];
  socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body.subarray(0, body.length / 2)]));
  // The server is receiving the upload: its file is there.
  const until = Date.now() + 10_000;
  while ((await svc.blobFiles()).uploads.length === 0 && Date.now() < until) await sleep(20);
  socket.destroy();

  const lines = await linesOf(key.id);
  if (!t.equal(lines.length, 1, 'one line')) return;
  t.match(lines[0], {
    msg: 'request completed',
    method: 'POST',
    statusCode: null,
    clientClosedEarly: true,
    keyId: key.id,
    tenantId: 'tenant-line-hang-up',
    billing: 'not_metered',
  });
  t.notOk('audioSeconds' in lines[0], 'never measured');
  await agreesWithLedger(t, lines[0], key.key);
});

t.test('audio above the boundary: a job, metered when it succeeds', async (t) => {
  const key = await newKey('tenant-line-job');
  const res = await transcribe(key.key, await readFile(await speechWav(BOUNDARY_SECONDS + 5)));
  t.equal(res.status, 202);
  await res.body?.cancel();
  const lines = await linesOf(key.id);
  if (!t.equal(lines.length, 1, 'one line')) return;
  t.match(lines[0], { statusCode: 202, keyId: key.id, tenantId: 'tenant-line-job', audioSeconds: BOUNDARY_SECONDS + 5, billing: 'job' });
  t.notOk('meteredSeconds' in lines[0], 'nothing metered by the request itself');
});

t.test('no line holds the key, the file name, the prompt or the transcript', async (t) => {
  const text = logs.text();
  t.notOk(/svc_[0-9A-Za-z]{12}_/.test(text), 'no API key');
  t.notOk(text.includes(FILENAME), 'no file name');
  t.notOk(/Xandrelle|Oquavine/.test(text), 'no prompt');
  t.notOk(text.includes('"delta"') || text.includes('"text"'), 'no transcript field');
});
