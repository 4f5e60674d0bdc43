// Patterns on POST /v1/audio/transcriptions, the real service and engine (random weights, so the
// words are noise: what is asserted is what holds whatever was said). A catastrophic-backtracking
// pattern is served like any other; every refusal is a 422 or 403 in the contract's envelope that
// never echoes the pattern; the response's `patterns` object has the documented shape, and
// formatting leaves every number said as it was. Wording-dependent formatting: pattern-stage.test.ts.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { schemas } from '../../src/api/openapi-components.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { numbersSaid } from '../helpers/numbers-said.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let entitled: string;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService();
  entitled = (await svc.createKey({ entitlements: ['patterns', 'language_detection'] })).key;
  speech = await readFile(await speechWav(6));
});
t.teardown(() => svc.close());

const wav = () => ({ data: speech, name: 'visit.wav', type: 'audio/wav' });
const post = (key: string, fields: Record<string, string>) => postTranscription(svc.url, key, { model: 'svc-medical-1', ...fields }, wav());

async function expectError(t: any, res: Response, status: number, code: string, mustNotContain?: string) {
  t.equal(res.status, status, `status ${status}`);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.same(Object.keys(body), ['error']);
  t.equal(body.error.code, code);
  if (mustNotContain) t.notOk(body.error.message.includes(mustNotContain), `the message does not echo the pattern: ${body.error.message}`);
  return body.error.message;
}

t.test('a catastrophic-backtracking pattern is served like any other, and the report has its shape', async (t) => {
  const plain = (await (await post(entitled, { response_format: 'verbose_json' })).json()) as any;
  const res = await post(entitled, { response_format: 'verbose_json', patterns: '(a+)+$,(?i)[a-z]+,\\d+(?:\\.\\d+)?' });
  t.equal(res.status, 200);
  const body = (await res.json()) as any;
  const report = body.patterns;
  t.same(Object.keys(report).sort(), [...(schemas.PatternsReport.required as string[])].sort(), 'the documented fields');
  t.equal(report.schema, 'svc-patterns-v1');
  t.equal(report.requested, 3);
  t.same(
    report.results.map((r: any) => r.index),
    [0, 1, 2],
  );
  t.equal(report.budget_exhausted, 0);
  t.equal(
    report.matches,
    report.results.reduce((n: number, r: any) => n + r.count, 0),
  );
  for (const r of report.results) {
    t.equal(r.spans.length, r.count, 'every match listed');
    t.equal(r.spans_truncated, false);
    for (const s of r.spans) {
      t.ok(s.start >= 0 && s.end >= s.start && s.end <= body.duration + 1e-6, 'span inside the audio');
      t.ok(body.text.includes(s.text), 'the formatted text is in the transcript');
    }
  }
  t.same(numbersSaid(body.text), numbersSaid(plain.text), 'the numbers said are the numbers written');
  t.equal(body.segments.map((s: any) => s.text).join(' '), body.text, 'segments spell the text');
  const none = (await (await post(entitled, { response_format: 'verbose_json' })).json()) as any;
  t.notOk('patterns' in none, 'no patterns requested: no report');
});

t.test('json and text answers are formatted the same way, without the report', async (t) => {
  const fields = { patterns: '(?i)[a-z]+' };
  const verbose = (await (await post(entitled, { ...fields, response_format: 'verbose_json' })).json()) as any;
  const json = (await (await post(entitled, { ...fields, response_format: 'json' })).json()) as any;
  const text = await (await post(entitled, { ...fields, response_format: 'text' })).text();
  t.same(Object.keys(json), ['text']);
  t.equal(json.text, verbose.text);
  t.equal(text, verbose.text);
});

t.test('refusals: 422 for what the language or its limits refuse, 403 without the entitlement', async (t) => {
  const refused: Array<[string, RegExp]> = [
    ['(canary)\\1', /pattern 1: an unsupported escape/],
    ['ok,canary+?', /pattern 2: lazy/],
    ['(?=canary)x', /only \(\?: \) groups/],
    ['canary|', /matches empty text/],
    ['(canary{100}){100}', /more than 2000 instructions/],
    ['canary{1000}', /above 100/],
    ['[canary', /class is not closed/],
    [`canary${'y'.repeat(300)}`, /longer than 256/],
    ['a,,canary', /pattern 2 is empty/],
    [Array.from({ length: 33 }, (_, i) => `canary${i}`).join(','), /at most 32 patterns/],
    ['c'.repeat(2049), /at most 2048 characters/],
  ];
  for (const [patterns, reason] of refused) {
    const message = await expectError(t, await post(entitled, { patterns }), 422, 'invalid_request', 'canary');
    t.match(message, reason);
  }
  await expectError(t, await post(svc.key, { patterns: '\\d+' }), 403, 'entitlement_denied');
  t.equal(
    (await post(entitled, { patterns: Array.from({ length: 32 }, (_, i) => `p${i}`).join(','), response_format: 'json' })).status,
    200,
    '32 patterns are served',
  );
});
