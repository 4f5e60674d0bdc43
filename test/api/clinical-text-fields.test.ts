// smart_format, redact and redact_substitution on the direct upload and the job body (issue 45.3, 46.1):
// the real service and engine. A generated model's words are noise, so what is asserted is what holds
// whatever was said: the fields are taken (the answer carries `redactions` and `redaction_counts`, a job
// keeps them to its result), each refusal is the contract's envelope naming the field and never the
// value sent, and a request that asks for them with what cannot honour them is refused, not ignored.
// What the stage does to words: test/pipeline/clinical-text-stage.test.ts, on a recorded decode.
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, createJobRequest, jobBody, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs } from '../helpers/test-logs.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array;
let logs: ReturnType<typeof captureLogs>;

t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { logger: { level: 'info', stream: logs.stream } });
  speech = await readFile(await speechWav(4));
});
t.teardown(() => svc.close());

const post = (fields: Record<string, string>) =>
  postTranscription(svc.url, svc.key, { model: 'svc-medical-1', ...fields }, { data: speech, name: 'visit.wav', type: 'audio/wav' });

async function refusal(t: Test, res: Response, status: number, code: string): Promise<string> {
  t.equal(res.status, status, `status ${status}`);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.equal(body.error.code, code);
  return body.error.message;
}

t.test('the upload takes them: the answer says where redaction removed something and how often', async (t) => {
  const res = await post({ response_format: 'verbose_json', smart_format: 'true', redact: 'identifiers,health', redact_substitution: 'hash' });
  t.equal(res.status, 200);
  const body = (await res.json()) as { text: string; redactions: Array<{ type: string; start: number; end: number }>; redaction_counts: object };
  t.ok(Array.isArray(body.redactions), 'redactions');
  t.type(body.redaction_counts, 'object');
  for (const r of body.redactions) t.ok(r.start >= 0 && r.end >= r.start, `${r.type} inside the audio`);
  const json = (await (await post({ response_format: 'json', redact: 'all' })).json()) as object;
  t.ok('redactions' in json && 'redaction_counts' in json, 'json carries them too');
  const plain = (await (await post({ response_format: 'verbose_json' })).json()) as object;
  t.notOk('redactions' in plain, 'not asked: not there');
  // The request's access-audit line counts them by class, and says nothing of what they were.
  const lines = logs.lines().filter((l) => l.msg === 'request completed' && l.route === '/v1/audio/transcriptions');
  const audited = lines.filter((l) => 'redactions' in l);
  t.equal(audited.length, 2, 'the two redacting requests');
  for (const line of audited)
    t.ok(
      Object.values(line.redactions as object).every((n) => Number.isInteger(n) && n > 0),
      'counts only',
    );
  t.equal(lines.length - audited.length, 1, 'the plain one has none');
});

t.test('confidence_threshold marks what a reviewer should check', async (t) => {
  const res = await post({ response_format: 'verbose_json', 'timestamp_granularities[]': 'word', confidence_threshold: '0.999' });
  t.equal(res.status, 200);
  const body = (await res.json()) as {
    words: Array<{ confidence: number; low_confidence?: true }>;
    segments: Array<{ confidence: number | null; low_confidence?: true }>;
  };
  t.ok(body.words.length > 0, 'words');
  for (const w of body.words) t.equal(w.low_confidence === true, w.confidence < 0.999, `a word at ${w.confidence}`);
  for (const s of body.segments) t.equal(s.low_confidence === true, s.confidence !== null && s.confidence < 0.999, `a segment at ${s.confidence}`);
  t.match(await refusal(t, await post({ confidence_threshold: '1.5' }), 400, 'invalid_request'), /^confidence_threshold must be a number between 0 and 1/);
});

t.test('refusals name the field, never the value', async (t) => {
  const secret = 'canary_patient_name';
  const unknown = await refusal(t, await post({ redact: `identifiers,${secret}` }), 422, 'invalid_request');
  t.match(unknown, /^redact has a policy not known/);
  t.notOk(unknown.includes(secret), 'the name sent is not echoed');
  t.match(await refusal(t, await post({ redact: 'identifiers,,date' }), 422, 'invalid_request'), /^redact must name policies/);
  t.match(await refusal(t, await post({ smart_format: 'yes' }), 400, 'invalid_request'), /^smart_format must be true or false/);
  t.match(await refusal(t, await post({ redact_substitution: 'hash' }), 422, 'invalid_request'), /^redact_substitution needs redact/);
  t.match(await refusal(t, await post({ redact: 'all', redact_substitution: 'stars' }), 400, 'invalid_request'), /^redact_substitution must be one of/);
  const logprobs = await refusal(t, await post({ response_format: 'json', 'include[]': 'logprobs', redact: 'identifiers' }), 422, 'invalid_request');
  t.match(logprobs, /include\[\]=logprobs gives the words redact removes/);
  t.match(await refusal(t, await post({ redact_audio: 'true' }), 422, 'invalid_request'), /^redact_audio needs redact/);
  t.match(await refusal(t, await post({ redact: 'all', redact_audio: 'yes' }), 400, 'invalid_request'), /^redact_audio must be true or false/);
  t.match(await refusal(t, await post({ redact: 'all', redact_audio_fill: 'tone' }), 422, 'invalid_request'), /^redact_audio_fill needs redact_audio/);
  const fill = await refusal(t, await post({ redact: 'all', redact_audio: 'true', redact_audio_fill: 'beep' }), 400, 'invalid_request');
  t.match(fill, /^redact_audio_fill must be one of: silence, tone/);
  t.match(await refusal(t, await post({ redact_output: 'redacted_and_unredacted' }), 422, 'invalid_request'), /^redact_output needs redact/);
  const output = await refusal(t, await post({ redact: 'all', redact_output: 'both' }), 400, 'invalid_request');
  t.match(output, /^redact_output must be one of: redacted, redacted_and_unredacted/);
  const both = await refusal(t, await post({ redact: 'all', redact_output: 'redacted_and_unredacted' }), 422, 'invalid_request');
  t.match(both, /^redact_output=redacted_and_unredacted keeps a copy beside a job result/, 'an inline answer stores nothing to keep it beside');
  const inline = await refusal(t, await post({ redact: 'all', redact_audio: 'true' }), 422, 'invalid_request');
  t.match(inline, /^redact_audio comes with a job/, 'an answer on the connection has no job to keep the copy');
  const translation = await fetch(`${svc.url}/v1/audio/translations`, {
    method: 'POST',
    headers: auth(svc.key),
    body: (() => {
      const form = new FormData();
      form.append('model', 'svc-medical-1');
      form.append('redact', 'identifiers');
      form.append('file', new Blob([Buffer.from(speech)], { type: 'audio/wav' }), 'visit.wav');
      return form;
    })(),
  });
  t.match(await refusal(t, translation, 422, 'invalid_request'), /^redact is a transcription field/);
});

t.test('a job keeps them to its result, and its body is refused as the form is', async (t) => {
  const key = await svc.createKey({ tenant: 'clinical-text' });
  t.equal((await createJobRequest(svc.url, key.key, jobBody(speech, { redact: ['identifiers'] }))).status, 400, 'redact is a string of names');
  t.equal((await createJobRequest(svc.url, key.key, jobBody(speech, { smart_format: 'true' }))).status, 400, 'smart_format a JSON boolean');
  t.equal((await createJobRequest(svc.url, key.key, jobBody(speech, { redact: 'all', redact_audio: 'true' }))).status, 400, 'redact_audio a JSON boolean');
  t.equal((await createJobRequest(svc.url, key.key, jobBody(speech, { redact_audio: true }))).status, 422, 'redact_audio needs redact');
  const job = await createJob(svc.url, key.key, jobBody(speech, { response_format: 'verbose_json', redact: 'identifiers', smart_format: true }));
  const stored = await svc.stores.jobs.get(job.id, key.tenant);
  t.same((stored?.request as { clinicalText: unknown }).clinicalText, {
    smartFormat: true,
    redact: ['identifiers'],
    redactSubstitution: 'entity_name',
    confidenceThreshold: null,
    redactAudio: false,
    redactAudioFill: 'silence',
    redactOutput: 'redacted',
  });
  const toned = await createJob(svc.url, key.key, jobBody(speech, { redact: 'all', redact_audio: true, redact_audio_fill: 'tone' }));
  t.match((await svc.stores.jobs.get(toned.id, key.tenant))?.request, { clinicalText: { redactAudio: true, redactAudioFill: 'tone' } }, 'the fill is kept');
  t.equal((await uploadFile(job, speech)).status < 300, true, 'uploaded');
  t.equal((await completeJob(job, key.key)).status, 202);
  const done = await waitForEnd(job.poll_url, key.key);
  t.equal(done.status, 'succeeded');
  const result = (await (await fetch(done.result.download_url, { headers: auth(key.key) })).json()) as object;
  t.ok('redactions' in result && 'redaction_counts' in result, 'the result says where and how many');
});
