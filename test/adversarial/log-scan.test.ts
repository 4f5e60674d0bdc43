// The log audit's scanner on planted logs: it finds each kind of leak it is meant to find, and
// nothing in the lines a well-behaved server writes. (The audit itself runs after the whole suite:
// log-audit.audit.ts.)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t, { type Test } from 'tap';

import { MEDICAL_SENTENCES } from '../helpers/audio-fixtures.js';
import { CANARY_SUFFIX } from '../helpers/test-logs.js';
import { scanLogs } from './lib/log-scan.js';

const KEY = `svc_AbCdEfGhIjKl_${'s'.repeat(40)}XyZ`;
const CLEAN_LINES = [
  '{"level":30,"reqId":"req_THbCHKqvoIcO0ScpiZWq","method":"POST","route":"/v1/audio/transcriptions","statusCode":415,"msg":"request completed"}',
  '{"level":30,"keyId":"key_AbCdEfGhIjKl","msg":"job created","job":"job_a9HCHa95YCziKViHaXsyVV"}',
  // The access audit trail: key and tenant ids are no secrets and no content.
  '{"level":30,"reqId":"req_THbCHKqvoIcO0ScpiZWq","method":"GET","route":"/v1/jobs/:job_id/result","statusCode":200,' +
    '"keyId":"key_AbCdEfGhIjKl","tenantId":"ten_Q2w3E4r5T6y7U8i9","msg":"request completed"}',
  '{"level":30,"audit":"job.result_read","jobId":"job_a9HCHa95YCziKViHaXsyVV",' +
    '"keyId":"key_AbCdEfGhIjKl","tenantId":"tenant-audit","via":"result","msg":"job audit"}',
  'svc-stt: created the first API key; it is in /tmp/data/first-api-key (mode 0600)',
  '{"level":40,"msg":"reading data.wav-like names is fine"}',
];

async function planted(t: Test, lines: string[], canaries: object[] = []): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-log-scan-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'serve-1-1.log'), `${lines.join('\n')}\n`);
  await writeFile(join(dir, `1${CANARY_SUFFIX}`), canaries.map((c) => JSON.stringify(c)).join('\n'));
  return dir;
}

t.test('clean logs have no findings', async (t) => {
  const scan = scanLogs(await planted(t, CLEAN_LINES, [{ kind: 'api_key', value: KEY }]));
  t.equal(scan.files, 1);
  t.equal(scan.lines, CLEAN_LINES.length);
  t.same(scan.findings, []);
});

const LEAKS: ReadonlyArray<readonly [string, string, object[]?]> = [
  ['an API key', `{"headers":{"authorization":"Bearer svc_Zz9Yy8Xx7Ww6_${'A'.repeat(43)}"}}`],
  ["an API key's secret", `{"token":"${KEY.slice(-43)}"}`, [{ kind: 'api_key', value: KEY }]],
  ['a webhook signing secret', '{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}'],
  ['a realtime client secret', `{"start":{"client_secret":"ek_${'Q'.repeat(40)}-_9"}}`],
  ['fixture speech text', `{"text":"${MEDICAL_SENTENCES[3].toUpperCase()}"}`],
  ['transcript text', '{"msg":"done","text":"Dedlao mupiri antiflex"}', [{ kind: 'transcript', value: 'Dedlao mupiri antiflex' }]],
  ['an uploaded file name', '{"filename":"visit.wav"}'],
  ['an uploaded file name', '{"msg":"stored patient-record-canary-visit.wav"}', [{ kind: 'filename', value: 'patient-record-canary' }]],
];

for (const [what, line, canaries] of LEAKS) {
  t.test(`finds ${what}`, async (t) => {
    const scan = scanLogs(await planted(t, [...CLEAN_LINES, line], canaries));
    t.ok(
      scan.findings.some((f) => f.what === what && f.line === CLEAN_LINES.length + 1),
      JSON.stringify(scan.findings),
    );
  });
}
