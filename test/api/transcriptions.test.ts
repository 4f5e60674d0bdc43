// POST /v1/audio/transcriptions end to end: the real service (SQLite, local blobs, engine on a generated
// model, ffmpeg), through fetch and the official openai client.
import { readFile } from 'node:fs/promises';

import OpenAI, { toFile } from 'openai';
import t from 'tap';

import { LANGUAGE_FAMILIES } from '../../src/domain/language-families.js';
import { encodeAs, pngImage, randomBytesFile, speechWav, truncatedCopy, wavFileBytes } from '../helpers/audio-fixtures.js';
import { poll, waitForEnd } from '../helpers/jobs-client.js';
import { postTranscription, startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let short: Uint8Array; // 3 s of speech: inline
let long: Uint8Array; // 12 s: above the 8 s boundary used here, so a job

t.before(async () => {
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '8' });
  short = await readFile(await speechWav(3));
  long = await readFile(await speechWav(12));
});
t.teardown(() => svc.close());

const wav = (data: Uint8Array, name = 'visit.wav') => ({ data, name, type: 'audio/wav' });

async function expectError(t: any, res: Response, status: number, code: string) {
  t.equal(res.status, status, `status ${status}`);
  t.ok(res.headers.get('x-request-id'), 'x-request-id present');
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.same(Object.keys(body), ['error'], 'only the error key');
  t.same(Object.keys(body.error).sort(), ['code', 'message']);
  t.equal(body.error.code, code);
  return body;
}

t.test('the openai client reads json, text and verbose_json', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const file = await toFile(short, 'visit.wav', { type: 'audio/wav' });
  const json = await client.audio.transcriptions.create({ file, model: 'svc-medical-1', response_format: 'json' });
  t.type(json.text, 'string');
  const text = await client.audio.transcriptions.create({ file: await toFile(short, 'visit.wav'), model: 'svc-medical-1', response_format: 'text' });
  t.type(text, 'string');
  t.equal(text, json.text, 'same transcript in both formats');
  const verbose = await client.audio.transcriptions.create({
    file: await toFile(short, 'visit.wav'),
    model: 'svc-medical-edge-1' as 'whisper-1',
    response_format: 'verbose_json',
  });
  t.equal(verbose.text, json.text);
  // No language and no key default: the dominant language is detected (random weights: any family).
  t.ok((LANGUAGE_FAMILIES as readonly string[]).includes(verbose.language) || (verbose.text === '' && verbose.language === 'und'), verbose.language);
  t.ok(Math.abs(verbose.duration - 3) < 0.1, `duration ${verbose.duration}`);
  t.ok(Array.isArray(verbose.segments));
  const extra = verbose as unknown as Record<string, any>;
  t.equal(extra.model, 'svc-medical-edge-1');
  t.match(extra.request_id, /^req_/);
  t.equal(extra.language_source, 'detected');
  t.same(extra.metadata.runtime, 'svc-runtime');
  t.type(extra.metadata.processing_ms.asr, 'number');
  t.equal(extra.metadata.processing_ms.diarization, 0);
  t.type(extra.metadata.api_version, 'string');
  t.match(extra.metadata.model_build, /whisper\.cpp-1\.9\.1/);
  t.equal(extra.vocabulary.enabled, false, 'no vocabulary requested: reported as not used');
  for (const s of extra.segments) {
    t.type(s.id, 'string');
    t.type(s.speaker, 'string');
    t.ok(s.start >= 0 && s.end <= verbose.duration + 1e-9 && s.end >= s.start, 'segment times inside the audio');
  }
});

t.test('default format is diarized_json (verbose shape) with x-request-id', async (t) => {
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(short));
  t.equal(res.status, 200);
  const id = res.headers.get('x-request-id');
  const body = (await res.json()) as Record<string, any>;
  t.equal(body.request_id, id);
  for (const field of ['text', 'language', 'duration', 'model', 'segments', 'speakers', 'speaker_timing', 'vocabulary', 'metadata']) {
    t.ok(field in body, `has ${field}`);
  }
});

t.test('every container of the contract is accepted', async (t) => {
  const src = await speechWav(3);
  for (const format of ['mp3', 'm4a', 'webm', 'ogg', 'flac', 'aac'] as const) {
    const data = await readFile(await encodeAs(src, format));
    const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'json' }, { data, name: `a.${format}` });
    t.equal(res.status, 200, format);
    await res.body?.cancel();
  }
});

t.test('authentication, billing and entitlements', async (t) => {
  await expectError(t, await postTranscription(svc.url, null, { model: 'svc-medical-1' }, wav(short)), 401, 'unauthorized');
  await expectError(t, await postTranscription(svc.url, 'svc_nope_nope', { model: 'svc-medical-1' }, wav(short)), 401, 'unauthorized');
  const paused = await svc.createKey();
  await svc.updateKey(paused.id, { billingState: 'paused' });
  await expectError(t, await postTranscription(svc.url, paused.key, { model: 'svc-medical-1' }, wav(short)), 402, 'billing_blocked');
  const noDetect = await svc.createKey({ entitlements: [] });
  await expectError(t, await postTranscription(svc.url, noDetect.key, { model: 'svc-medical-1', language: 'auto' }, wav(short)), 403, 'entitlement_denied');
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', patterns: '\\d+' }, wav(short)), 403, 'entitlement_denied');
  const patterned = await svc.createKey({ entitlements: ['patterns', 'language_detection'] });
  const res = await postTranscription(svc.url, patterned.key, { model: 'svc-medical-1', patterns: '\\d+ mg', response_format: 'json' }, wav(short));
  t.equal(res.status, 200, 'patterns accepted with the entitlement');
  await res.body?.cancel();
});

t.test('field validation: status and code per the contract', async (t) => {
  const cases: Array<[Record<string, string>, number]> = [
    [{}, 400],
    [{ model: 'whisper-1' }, 400],
    [{ model: 'svc-medical-1', response_format: 'ass' }, 400],
    [{ model: 'svc-medical-1', profile: 'fast' }, 400],
    [{ model: 'svc-medical-1', diarize: 'maybe' }, 400],
    [{ model: 'svc-medical-1', dictionary: 'yes' }, 400],
    [{ model: 'svc-medical-1', language: 'xx' }, 422],
    [{ model: 'svc-medical-1', language: 'ja' }, 422],
    [{ model: 'svc-medical-1', language: 'en-GB-oxendict' }, 422],
    [{ model: 'svc-medical-1', language_hints: '["en"]' }, 422],
    [{ model: 'svc-medical-1', language: 'auto', language_hints: 'en' }, 422],
    [{ model: 'svc-medical-1', language: 'auto', language_hints: '[]' }, 422],
    [{ model: 'svc-medical-1', language: 'auto', language_hints: JSON.stringify(['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi', 'en-GB']) }, 422],
    [{ model: 'svc-medical-1', language: 'auto', language_hints: '["en","xx"]' }, 422],
    [{ model: 'svc-medical-1', vocabulary: 'metoprolol' }, 422],
    [{ model: 'svc-medical-1', vocabulary: '[1,2]' }, 422],
    [{ model: 'svc-medical-1', vocabulary: JSON.stringify(Array.from({ length: 1001 }, (_, i) => `term${i}`)) }, 422],
    [{ model: 'svc-medical-1', vocabulary: JSON.stringify(['x'.repeat(97)]) }, 422],
    [{ model: 'svc-medical-1', language: 'ar', vocabulary: JSON.stringify(Array.from({ length: 31 }, (_, i) => `t${i}`)) }, 422],
    [{ model: 'svc-medical-1', language: 'auto', vocabulary: JSON.stringify(Array.from({ length: 31 }, (_, i) => `t${i}`)) }, 422],
    [{ model: 'svc-medical-1', keywords: 'metoprolol' }, 422],
    [{ model: 'svc-medical-1', prompt: 'p'.repeat(801) }, 422],
    [{ model: 'svc-medical-1', prompt: 'bad\u0001prompt' }, 422],
    [{ model: 'svc-medical-1', webhook_url: 'http://example.com/hook' }, 422],
    [{ model: 'svc-medical-1', webhook_url: 'https://example.com:8443/hook' }, 422],
    [{ model: 'svc-medical-1', webhook_url: 'https://user:pw@example.com/hook' }, 422],
    [{ model: 'svc-medical-1', webhook_url: 'https://example.com/hook#frag' }, 422],
    [{ model: 'svc-medical-1', webhook_url: `https://example.com/${'a'.repeat(2030)}` }, 422],
    [{ model: 'svc-medical-1', webhook_url: 'https://example.com/hook' }, 422], // no signing secret yet
    [{ model: 'svc-medical-1', diarize: 'true', response_format: 'json' }, 422],
  ];
  for (const [fields, status] of cases) {
    const res = await postTranscription(svc.url, svc.key, fields, wav(short));
    const body = await expectError(t, res, status, 'invalid_request');
    for (const [name, value] of Object.entries(fields)) {
      // Short enum words (json, auto, true) may legitimately appear in the fixed texts.
      if (name !== 'model' && value.length > 5) t.notOk(body.error.message.includes(value), 'message does not echo the field');
    }
  }
  // Bidirectional controls (RLO, LRI, RLM, ALM...) could reorder how a term or the prompt reads: 422 naming the field.
  for (const [fields, message] of [
    [{ vocabulary: JSON.stringify(['metoprolol \u202e50 mg']) }, /^vocabulary terms must not contain control or bidirectional control characters$/],
    [{ vocabulary: JSON.stringify(['a\u2066b']) }, /^vocabulary terms must not contain/],
    [{ 'keywords[]': 'dose\u200f' }, /^vocabulary terms must not contain/],
    [{ prompt: 'Follow-up \u061c visit' }, /^prompt must not contain control or bidirectional control characters$/],
    [{ prompt: 'Follow-up \u202a visit' }, /^prompt must not contain/],
  ] as const) {
    const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', ...fields }, wav(short));
    const body = await expectError(t, res, 422, 'invalid_request');
    t.match(body.error.message, message);
  }
  t.equal(
    (await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', prompt: 'Two lines,\r\n\tindented.' }, wav(short))).status,
    200,
    'line breaks pass',
  );
  // 1,000 terms of 96 characters are fine.
  const ok = await postTranscription(
    svc.url,
    svc.key,
    {
      model: 'svc-medical-1',
      response_format: 'verbose_json',
      vocabulary: JSON.stringify(Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(96, 'x'))),
    },
    wav(short),
  );
  t.equal(ok.status, 200);
  const body = (await ok.json()) as Record<string, any>;
  t.equal(body.vocabulary.enabled, true);
  t.equal(body.vocabulary.requested_terms, 1000);
  t.equal(body.vocabulary.mode, 'retrieval');
  t.ok(body.vocabulary.prompted_terms <= 50 * Math.max(1, body.vocabulary.prompted_chunks), 'at most 50 per window');
  t.equal(body.vocabulary.delivered + body.vocabulary.unresolved, 1000);
});

t.test('the openai client sends prompt and keywords: both honoured, audited', async (t) => {
  const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  const verbose = (await client.audio.transcriptions.create({
    file: await toFile(short, 'visit.wav', { type: 'audio/wav' }),
    model: 'svc-medical-1' as 'whisper-1',
    language: 'en',
    response_format: 'verbose_json',
    prompt: 'Cardiology follow-up.',
    keywords: ['metoprolol', 'Lisinopril'],
  } as never)) as unknown as Record<string, any>;
  const audit = verbose.vocabulary;
  t.equal(audit.enabled, true);
  t.equal(audit.requested_terms, 2, 'keywords[] is the vocabulary');
  t.equal(audit.prompt_supplied, true);
  t.equal(audit.delivered + audit.unresolved, 2);
  const both = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', vocabulary: '["a"]', keywords: '["b"]' }, wav(short));
  await expectError(t, both, 400, 'invalid_request');
});

t.test('deprecated profiles answer with Deprecation and Warning headers', async (t) => {
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', profile: 'turbo', response_format: 'json' }, wav(short));
  t.equal(res.status, 200);
  t.equal(res.headers.get('deprecation'), 'true');
  t.equal(res.headers.get('warning'), `299 - "profile 'turbo' is deprecated; use 'default'"`);
  await res.body?.cancel();
  const plain = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', profile: 'default', response_format: 'json' }, wav(short));
  t.equal(plain.headers.get('deprecation'), null);
  await plain.body?.cancel();
});

t.test('media type and audio checks', async (t) => {
  const png = await readFile(await pngImage());
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(png, 'photo.wav')), 415, 'unsupported_media_type');
  const random = await readFile(await randomBytesFile(65536));
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(random)), 415, 'unsupported_media_type');
  const cutM4a = await readFile(await truncatedCopy(await encodeAs(await speechWav(8), 'm4a'), 0.5));
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, { data: cutM4a, name: 'a.m4a' }), 400, 'invalid_request');
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(new Uint8Array(0))), 400, 'invalid_request');
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, null), 400, 'invalid_request');
  // Half a second of audio is under the 1 s floor.
  const half = short.subarray(0, 44 + 16000);
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(half)), 422, 'invalid_request');
  // Longer than max_audio_seconds (10 s on this instance): 413, and nothing stored.
  const strict = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '8', SVC_MAX_AUDIO_SECONDS: '10' });
  t.teardown(() => strict.close());
  await expectError(t, await postTranscription(strict.url, strict.key, { model: 'svc-medical-1' }, wav(long)), 413, 'upload_too_large');
  t.same(await strict.blobFiles(), { uploads: [], jobs: [] });
  const res = await fetch(`${svc.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' },
    body: '{"model":"svc-medical-1"}',
  });
  await expectError(t, res, 415, 'unsupported_media_type');
});

t.test('above the boundary: 202 with a durable job, Location and Retry-After', async (t) => {
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'verbose_json' }, wav(long));
  t.equal(res.status, 202);
  t.equal(res.headers.get('retry-after'), '5');
  const body = (await res.json()) as Record<string, any>;
  t.match(body, { object: 'transcription.job', status: 'accepted', model: 'svc-medical-1', webhook: { requested: false } });
  t.match(body.id, /^job_/);
  t.equal(res.headers.get('location'), body.poll_url);
  t.equal(body.poll_url, `${svc.url}/v1/jobs/${body.id}`);
  t.ok(!Number.isNaN(Date.parse(body.created_at)));
  const files = await svc.blobFiles();
  t.equal(files.uploads.length, 0, 'no upload left behind');
  t.ok(files.jobs.length >= 1, 'the job audio is durable');
  // Handed to the worker loop: the same job reaches succeeded and its audio is deleted.
  const done = await fetch(`${body.poll_url}?wait=30`, { headers: { authorization: `Bearer ${svc.key}` } });
  let job = (await done.json()) as Record<string, any>;
  for (let i = 0; i < 20 && job.status !== 'succeeded' && job.status !== 'failed'; i++) {
    job = (await (await fetch(`${body.poll_url}?wait=30`, { headers: { authorization: `Bearer ${svc.key}` } })).json()) as Record<string, any>;
  }
  t.equal(job.status, 'succeeded', 'processed by the worker loop');
  t.equal(job.result.content_type, 'application/json; charset=utf-8');
});

t.test('Idempotency-Key: replay, conflict, concurrency, ignored inline', async (t) => {
  const headers = { 'idempotency-key': 'visit-42' };
  const fields = { model: 'svc-medical-1' };
  const [a, b] = await Promise.all([
    postTranscription(svc.url, svc.key, fields, wav(long), headers),
    postTranscription(svc.url, svc.key, fields, wav(long), headers),
  ]);
  const bodies = await Promise.all([a, b].map(async (r) => ({ status: r.status, body: (await r.json()) as any })));
  const accepted = bodies.filter((r) => r.status === 202);
  t.ok(accepted.length >= 1, 'at least one accepted');
  for (const r of bodies) {
    if (r.status === 202) t.equal(r.body.id, accepted[0].body.id, 'same job for the same key and content');
    else t.match(r, { status: 409, body: { error: { code: 'idempotency_in_progress' } } });
  }
  const replay = await postTranscription(svc.url, svc.key, fields, wav(long), headers);
  t.equal(replay.status, 202);
  t.equal(((await replay.json()) as any).id, accepted[0].body.id, 'replayed');
  const other = await postTranscription(svc.url, svc.key, { ...fields, response_format: 'json' }, wav(long), headers);
  await expectError(t, other, 409, 'idempotency_conflict');
  // The tenant's: another key of the tenant sending the same request is refused like other content,
  // never told the job (which it could not poll).
  const sibling = await svc.createKey({ tenant: (await svc.stores.keys.authenticate(svc.key))!.tenant });
  await expectError(t, await postTranscription(svc.url, sibling.key, fields, wav(long), headers), 409, 'idempotency_conflict');
  // Scoped to the tenant: another tenant's same key is a new request.
  const stranger = await svc.createKey();
  const theirs = await postTranscription(svc.url, stranger.key, fields, wav(long), headers);
  t.equal(theirs.status, 202);
  t.not(((await theirs.json()) as any).id, accepted[0].body.id);
  // Inline answers ignore the key: different content, same key, both 200.
  const i1 = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'json' }, wav(short), { 'idempotency-key': 'inline' });
  const i2 = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'text' }, wav(short), { 'idempotency-key': 'inline' });
  t.same([i1.status, i2.status], [200, 200]);
  await expectError(t, await postTranscription(svc.url, svc.key, fields, wav(long), { 'idempotency-key': 'k'.repeat(256) }), 400, 'invalid_request');
});

t.test('the 100,000,000-byte cap: 413 and the partial file removed', async (t) => {
  const big = new Uint8Array(100_000_001);
  big.set(short.subarray(0, 44));
  await expectError(t, await postTranscription(svc.url, svc.key, { model: 'svc-medical-1' }, wav(big)), 413, 'upload_too_large');
  t.same((await svc.blobFiles()).uploads, [], 'no partial upload left');
});

t.test('no audio is left in the upload folder after any request', async (t) => {
  t.same((await svc.blobFiles()).uploads, []);
});

t.test('language=auto: per-utterance detection inline; an unsupported likeliest language is 422, a job fails', async (t) => {
  // The generated model finds an unsupported language likeliest on this speech (checked in
  // test/pipeline/pipeline-vad.test.ts on the same model): refused, never transcribed as English.
  const refused = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'auto', response_format: 'verbose_json' }, wav(short));
  const body = await expectError(t, refused, 422, 'invalid_request');
  t.equal(body.error.message, 'the detected language is not supported');

  const hinted = await postTranscription(
    svc.url,
    svc.key,
    { model: 'svc-medical-1', language: 'auto', language_hints: '["es-MX","pt"]', response_format: 'verbose_json' },
    wav(short),
  );
  t.equal(hinted.status, 200, 'with hints the likeliest hinted language is used');
  const verbose = (await hinted.json()) as Record<string, any>;
  t.equal(verbose.language_source, 'detected');
  t.match(verbose.language_detection, { mode: 'per_utterance', candidates: ['es', 'pt'], requested_candidates: ['es-MX', 'pt'], fallbacks: 0 });
  t.ok(verbose.language_detection.utterances >= 1, 'utterances counted');
  for (const segment of verbose.segments) t.ok(['es', 'pt'].includes(segment.language), 'segments carry a candidate language');

  // Above the inline boundary the same request is a job, which fails with the audio's code.
  const job = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'auto' }, wav(long));
  t.equal(job.status, 202);
  const { poll_url } = (await job.json()) as { poll_url: string };
  let view: any;
  for (;;) {
    view = await (await fetch(`${poll_url}?wait=20`, { headers: { authorization: `Bearer ${svc.key}` } })).json();
    if (view.status === 'succeeded' || view.status === 'failed') break;
  }
  t.equal(view.status, 'failed');
  t.same(view.error, { code: 'audio_undecodable', message: 'the detected language is not supported' });
});

t.test('language=auto on silence: und, language_source detected and a detection block of no utterances, inline and as a job', async (t) => {
  const silence = (seconds: number) => wav(wavFileBytes(new Int16Array(seconds * 16_000)), 'quiet.wav');
  const noUtterances = { mode: 'per_utterance', candidates: [...LANGUAGE_FAMILIES], languages: [], utterances: 0, fallbacks: 0 };
  const inline = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'auto', response_format: 'verbose_json' }, silence(4));
  t.equal(inline.status, 200);
  const body = (await inline.json()) as Record<string, any>;
  t.match(body, { text: '', language: 'und', segments: [] });
  t.equal(body.language_source, 'detected', 'asked to detect: never `default`');
  t.same(body.language_detection, noUtterances);

  const hinted = await postTranscription(
    svc.url,
    svc.key,
    { model: 'svc-medical-1', language: 'auto', language_hints: '["es-MX","pt"]', response_format: 'verbose_json' },
    silence(4),
  );
  const hintedBody = (await hinted.json()) as Record<string, any>;
  t.equal(hintedBody.language_source, 'detected');
  t.same(hintedBody.language_detection, { ...noUtterances, candidates: ['es', 'pt'], requested_candidates: ['es-MX', 'pt'] }, 'the candidates as asked');

  // Above the inline boundary: a job, whose result says the same.
  const job = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', language: 'auto', response_format: 'verbose_json' }, silence(12));
  t.equal(job.status, 202);
  const { poll_url } = (await job.json()) as { poll_url: string };
  t.equal((await waitForEnd(poll_url, svc.key)).status, 'succeeded');
  const result = (await poll(poll_url, svc.key, '?include_result=true')).body.result.content;
  t.match(result, { text: '', language: 'und' });
  t.equal(result.language_source, 'detected');
  t.same(result.language_detection, noUtterances);
});
