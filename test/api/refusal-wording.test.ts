// What a newcomer's mistake is told, through the real service: an unknown field's refusal names the
// field when it is shaped like a field name (never a value; any other name is described, since it may
// be content), on the multipart route, the job route and the realtime start; an unsupported language
// tag's lists the tags that are supported.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { createJobRequest, jobBody } from '../helpers/jobs-client.js';
import { connectRealtime, startMessage } from '../helpers/realtime-client.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Buffer;
t.before(async () => {
  svc = await startTestService();
  speech = await readFile(await speechWav(2));
});
t.teardown(() => svc.close());

type Envelope = { error: { code: string; message: string } };
const wav = () => ({ data: speech, name: 'visit.wav', type: 'audio/wav' });
const transcribe = (fields: Record<string, string>) => postTranscription(svc.url, svc.key, { model: 'svc-medical-1', ...fields }, wav());

t.test('an unknown multipart field is named, its value never echoed', async (t) => {
  const res = await transcribe({ languag: 'canary-value' });
  t.equal(res.status, 400);
  const body = (await res.json()) as Envelope;
  t.equal(body.error.code, 'invalid_request');
  t.match(body.error.message, /^the request has a field "languag" that is not one of: model, /);
  t.notMatch(body.error.message, /canary/);
});

t.test('a name not shaped like a field name is described, never shown', async (t) => {
  for (const hostile of [`evil\u202e\u0007name`, 'x'.repeat(500), 'ECHO7CANARY', "'; DROP TABLE jobs; --", 'Language']) {
    const res = await transcribe({ [hostile]: '1' });
    t.equal(res.status, 400);
    const { message } = ((await res.json()) as Envelope).error;
    t.match(message, /^the request has a field whose name is not a field name that is not one of: model, /, JSON.stringify(hostile).slice(0, 40));
    t.notOk(message.includes(hostile), 'the name is not in the message');
  }
});

t.test('an unknown field of the job JSON body is named', async (t) => {
  const res = await createJobRequest(svc.url, svc.key, jobBody(speech, { vocabulery: ['canary'] }));
  t.equal(res.status, 400);
  const { message } = ((await res.json()) as Envelope).error;
  t.match(message, /^the request has a field "vocabulery" that is not one of: model, /);
  t.notMatch(message, /canary/);
});

t.test('an unknown field of the realtime start is named', async (t) => {
  const url = svc.service.realtime!.url;
  for (const [fields, named] of [
    [{ languag: 'canary' }, /^the start message has a field "languag" that is not one of: type, /],
    [
      { audio: { encoding: 'pcm16', sample_rate: 16000, channels: 1, rate: 'canary' } },
      /^audio has a field "rate" that is not one of: encoding, sample_rate, channels$/,
    ],
  ] as const) {
    const c = await connectRealtime(url);
    c.start(startMessage(svc.key, fields));
    t.same(await c.closed, { code: 4400, reason: 'INVALID_START' });
    t.match(c.events[0], { type: 'error', code: 'invalid_request', message: named });
    t.notMatch(JSON.stringify(c.events[0]), /canary/);
  }
});

t.test('an unsupported language tag lists the supported ones', async (t) => {
  const families = new RegExp(LANGUAGE_FAMILIES.join(', '));
  const direct = await transcribe({ language: 'ja' });
  t.equal(direct.status, 422);
  const directMessage = ((await direct.json()) as Envelope).error.message;
  t.match(directMessage, /^language is not a supported language tag: use one of the families /);
  t.match(directMessage, families);
  t.match(directMessage, /en-GB/, 'says a region may follow');
  const hints = await transcribe({ language: 'auto', language_hints: '["en","ja"]' });
  t.equal(hints.status, 422);
  t.match(((await hints.json()) as Envelope).error.message, families);
  const job = await createJobRequest(svc.url, svc.key, jobBody(speech, { language: 'ja' }));
  t.equal(job.status, 422);
  t.match(((await job.json()) as Envelope).error.message, families);
});
