// The /v1/jobs flow end to end on the real service (SQLite, local blobs, ffmpeg, the engine on a
// generated model): each transition of the contract's table, the presigned form's refusals in S3's
// terms, owner scoping, idempotent creation, long polls, inline results and provisional results.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { randomBytesFile, speechWav } from '../helpers/audio-fixtures.js';
import { auth, completeJob, createJob, createJobRequest, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { embeddedUploadsOnly, startTestService, type TestService, testStorePair } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array; // 12 s

t.before(async () => {
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: '5' });
  speech = await readFile(await speechWav(12));
});
t.teardown(() => svc.close());

async function expectError(t: any, res: Response, status: number, code: string) {
  t.equal(res.status, status, `status ${status}`);
  const body = (await res.json()) as { error: { code: string; message: string } };
  t.same(Object.keys(body), ['error']);
  t.equal(body.error.code, code, `code ${code}`);
}

async function expectS3Error(t: any, res: Response, status: number, code: string, message?: RegExp) {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers.get('content-type'), /application\/xml/);
  const xml = await res.text();
  t.match(xml, new RegExp(`<Code>${code}</Code>`), `S3 code ${code}`);
  if (message) t.match(xml, message);
}

t.test('the whole flow: created, uploaded, completed, running, succeeded; audio deleted', async (t) => {
  const res = await createJobRequest(svc.url, svc.key, jobBody(speech, { response_format: 'verbose_json' }));
  t.equal(res.status, 201);
  const job = (await res.json()) as any;
  t.match(job, {
    object: 'transcription.job',
    status: 'awaiting_upload',
    model: 'svc-medical-1',
    upload: { method: 'POST', expires_in_seconds: 3600 },
    min_audio_seconds: 30,
    max_audio_seconds: 7200,
  });
  t.match(job.id, /^job_/);
  t.equal(job.poll_url, `${svc.url}/v1/jobs/${job.id}`);
  t.equal(job.complete_url, `${job.poll_url}/complete`);
  // The embedded upload route's form, or (PostgreSQL + S3) the bucket's own POST policy. Only the
  // embedded route refuses a second post itself; S3 takes it as a new object (direct-upload.test.ts).
  const embedded = testStorePair() === 'sqlite+local';
  if (embedded) t.same(Object.keys(job.upload.fields).sort(), ['Content-Type', 'key', 'policy', 'x-svc-algorithm', 'x-svc-signature']);
  else t.match(job.upload.fields, { key: `uploads/${job.id}`, 'Content-Type': 'audio/wav', Policy: String, 'X-Amz-Signature': String });

  await expectError(t, await completeJob(job, svc.key), 409, 'upload_not_complete');
  const up = await uploadFile(job, speech);
  t.equal(up.status, 204, 'stored (S3 answers a form POST 204)');
  t.equal((await poll(job.poll_url, svc.key)).body.status, 'awaiting_upload', 'stored, not yet completed');
  if (embedded) await expectS3Error(t, await uploadFile(job, speech), 403, 'AccessDenied', /already been used/);

  const completed = await completeJob(job, svc.key);
  t.equal(completed.status, 202);
  const accepted = (await completed.json()) as any;
  t.ok(['accepted', 'running'].includes(accepted.status), `accepted (${accepted.status})`);
  const again = await completeJob(job, svc.key);
  t.equal(again.status, 202, 'a retried complete is answered with the job');
  await again.body?.cancel();
  if (embedded) await expectS3Error(t, await uploadFile(job, speech), 403, 'AccessDenied', /already been used/);

  const done = await waitForEnd(job.poll_url, svc.key);
  t.equal(done.status, 'succeeded');
  t.notOk(done.transcription, 'no provisional block once final');
  t.match(done.result, { download_url: `${job.poll_url}/result`, content_type: 'application/json; charset=utf-8', expired: false });
  t.ok(done.result.expires_in_seconds > 23 * 3600 && done.result.expires_in_seconds <= 24 * 3600, 'retained 24 h by default');
  t.notOk('content' in done.result, 'no content unless asked');

  const noKey = await fetch(done.result.download_url);
  await expectError(t, noKey, 401, 'unauthorized');
  const download = await fetch(done.result.download_url, { headers: auth(svc.key) });
  t.equal(download.status, 200);
  const result = (await download.json()) as any;
  t.type(result.text, 'string');
  t.equal(result.request_id, job.id);
  t.equal(result.language_source, 'detected', 'no language and no key default: detected (jobs-language-detection.test.ts)');
  t.equal(result.word_timing_available, false);
  t.ok(Math.abs(result.duration - 12) < 0.2, `duration ${result.duration}`);
  for (const s of result.segments) {
    t.equal(s.start_ms, Math.round(s.start * 1000), 'legacy start_ms beside start');
    t.equal(s.end_ms, Math.round(s.end * 1000));
    t.ok(s.end <= 12.01, 'times are offsets into the whole recording');
  }
  t.ok(
    result.segments.some((s: any) => s.start >= 5),
    'later chunks are shifted by their offset',
  );

  const inline = await poll(job.poll_url, svc.key, '?include_result=true');
  t.same(inline.body.result.content, result, 'the same result inline');
  t.equal(inline.body.result.inline, true);

  t.same(await svc.blobFiles(), { uploads: [], jobs: [] }, 'uploaded audio deleted when the job ended');
  t.same(await svc.resultFiles(), [`${job.id}.result`], 'only the final result remains');
  await expectError(t, await fetch(`${job.poll_url}/partial`, { headers: auth(svc.key) }), 404, 'not_found');
});

t.test('another key cannot see, complete, download or upload-complete a job', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  const stranger = await svc.createKey();
  await expectError(t, await fetch(job.poll_url, { headers: auth(stranger.key) }), 404, 'not_found');
  await expectError(t, await completeJob(job, stranger.key), 404, 'not_found');
  await expectError(t, await fetch(`${job.poll_url}/result`, { headers: auth(stranger.key) }), 404, 'not_found');
  await expectError(t, await fetch(`${job.poll_url}/partial`, { headers: auth(stranger.key) }), 404, 'not_found');
  await expectError(t, await fetch(`${svc.url}/v1/jobs/job_doesnotexist`, { headers: auth(svc.key) }), 404, 'not_found');
});

/** Status, type and body of an answer, to compare one answer with another byte for byte. */
async function answerOf(res: Response): Promise<{ status: number; type: string | null; body: string }> {
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

t.test("a job is its key's: another key of the same tenant gets the unknown id's 404 on every job route", async (t) => {
  const owner = await svc.createKey({ tenant: 'clinic-owner-scope' });
  const sibling = await svc.createKey({ tenant: 'clinic-owner-scope' });
  const job = await createJob(svc.url, owner.key, jobBody(speech));
  const unknownUrl = `${svc.url}/v1/jobs/job_doesnotexist`;
  // What any key is told about an id that names no job, route by route.
  const unknown = {
    poll: await answerOf(await fetch(unknownUrl, { headers: auth(sibling.key) })),
    complete: await answerOf(await fetch(`${unknownUrl}/complete`, { method: 'POST', headers: auth(sibling.key) })),
    result: await answerOf(await fetch(`${unknownUrl}/result`, { headers: auth(sibling.key) })),
    partial: await answerOf(await fetch(`${unknownUrl}/partial`, { headers: auth(sibling.key) })),
  };
  t.match(unknown.poll, { status: 404, body: /"code":"not_found"/ });
  const asSibling = async () => ({
    poll: await answerOf(await fetch(job.poll_url, { headers: auth(sibling.key) })),
    complete: await answerOf(await completeJob(job, sibling.key)),
    result: await answerOf(await fetch(`${job.poll_url}/result`, { headers: auth(sibling.key) })),
    partial: await answerOf(await fetch(`${job.poll_url}/partial`, { headers: auth(sibling.key) })),
  });
  t.same(await asSibling(), unknown, 'awaiting its upload: exactly the answers for an unknown id');
  t.equal((await uploadFile(job, speech)).status, 204);
  t.same(await asSibling(), unknown, 'uploaded, not completed: the same');
  t.equal((await poll(job.poll_url, owner.key)).body.status, 'awaiting_upload', "the sibling's complete did not complete it");

  t.equal((await completeJob(job, owner.key)).status, 202, 'the owner completes it');
  const done = await waitForEnd(job.poll_url, owner.key);
  t.equal(done.status, 'succeeded');
  t.same(await asSibling(), unknown, 'succeeded: still exactly the answers for an unknown id');
  t.equal((await poll(job.poll_url, owner.key, '?include_result=true')).status, 200, 'the owner polls it');
  const result = await fetch(`${job.poll_url}/result`, { headers: auth(owner.key) });
  t.equal(result.status, 200, 'the owner downloads its result');
  await result.body?.cancel();
  const ownerPartial = await answerOf(await fetch(`${job.poll_url}/partial`, { headers: auth(owner.key) }));
  t.equal(ownerPartial.status, 404, 'a finished job has no provisional result');
  t.not(ownerPartial.body, unknown.partial.body, 'but the owner is told that, not that the job is unknown');
});

t.test('DELETE is 405 cancellation_not_supported', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  await expectError(t, await fetch(job.poll_url, { method: 'DELETE', headers: auth(svc.key) }), 405, 'cancellation_not_supported');
  t.equal((await poll(job.poll_url, svc.key)).body.status, 'awaiting_upload', 'nothing happened to it');
});

t.test('every field of the creation table is validated before a slot exists', async (t) => {
  const base = jobBody(speech);
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['no filename', { ...base, filename: undefined }, 400, 'invalid_request'],
    ['long filename', { ...base, filename: `${'a'.repeat(252)}.wav` }, 400, 'invalid_request'],
    ['no content type', { ...base, content_type: undefined }, 400, 'invalid_request'],
    ['unsupported type', { ...base, content_type: 'video/x-msvideo', filename: 'a.avi' }, 415, 'unsupported_media_type'],
    ['name and type disagree', { ...base, filename: 'visit.mp3' }, 400, 'invalid_request'],
    ['no length', { ...base, content_length_bytes: undefined }, 400, 'invalid_request'],
    ['zero length', { ...base, content_length_bytes: 0 }, 400, 'invalid_request'],
    ['fractional length', { ...base, content_length_bytes: 1.5 }, 400, 'invalid_request'],
    ['over 1 GiB', { ...base, content_length_bytes: 1_073_741_825 }, 413, 'upload_too_large'],
    ['other model', { ...base, model: 'svc-medical-edge-1' }, 400, 'invalid_request'],
    ['bad format', { ...base, response_format: 'ass' }, 400, 'invalid_request'],
    ['bad language', { ...base, language: 'xx' }, 422, 'invalid_request'],
    ['hints without auto', { ...base, language_hints: ['en'] }, 422, 'invalid_request'],
    ['nine hints', { ...base, language: 'auto', language_hints: ['en', 'es', 'pt', 'fr', 'de', 'nl', 'ar', 'hi', 'en-GB'] }, 422, 'invalid_request'],
    ['repeated hints', { ...base, language: 'auto', language_hints: ['en', 'en'] }, 422, 'invalid_request'],
    ['1001 terms', { ...base, vocabulary: Array.from({ length: 1001 }, (_, i) => `term${i}`) }, 422, 'invalid_request'],
    ['97-character term', { ...base, vocabulary: ['x'.repeat(97)] }, 422, 'invalid_request'],
    ['31 terms with auto', { ...base, language: 'auto', vocabulary: Array.from({ length: 31 }, (_, i) => `t${i}`) }, 422, 'invalid_request'],
    ['vocabulary and keywords', { ...base, vocabulary: ['a'], keywords: ['b'] }, 400, 'invalid_request'],
    ['keywords not an array', { ...base, keywords: 'metoprolol' }, 422, 'invalid_request'],
    ['prompt not a string', { ...base, prompt: ['a'] }, 422, 'invalid_request'],
    ['prompt too long', { ...base, prompt: 'a'.repeat(801) }, 422, 'invalid_request'],
    ['long patterns', { ...base, patterns: 'a'.repeat(2049) }, 422, 'invalid_request'],
    ['patterns without entitlement', { ...base, patterns: '\\d+' }, 403, 'entitlement_denied'],
    ['max_speakers 5', { ...base, max_speakers: 5 }, 422, 'invalid_request'],
    ['max_speakers 0', { ...base, max_speakers: 0 }, 422, 'invalid_request'],
    ['diarize with json', { ...base, diarize: true }, 422, 'invalid_request'],
    ['diarize not boolean', { ...base, diarize: 'yes', response_format: 'verbose_json' }, 400, 'invalid_request'],
    ['http webhook', { ...base, webhook_url: 'http://example.com/hook' }, 422, 'invalid_request'],
    ['webhook without secret', { ...base, webhook_url: 'https://example.com/hook' }, 422, 'invalid_request'],
    ['unknown field', { ...base, vocabulery: ['x'] }, 400, 'invalid_request'],
    ['bad profile', { ...base, profile: 'fast' }, 400, 'invalid_request'],
  ];
  for (const [name, body, status, code] of cases) {
    const res = await createJobRequest(svc.url, svc.key, body);
    t.equal(res.status, status, `${name}: ${status}`);
    t.equal(((await res.json()) as any).error?.code, code, `${name}: ${code}`);
  }
  const ok = await createJobRequest(svc.url, svc.key, {
    ...base,
    language: 'en-GB',
    max_speakers: 2,
    diarize: true,
    response_format: 'verbose_json',
    vocabulary: ['metoprolol'],
    profile: 'turbo',
  });
  t.equal(ok.status, 201, 'a valid request with every option');
  t.equal(ok.headers.get('deprecation'), 'true', 'deprecated profile flagged');
  const paused = await svc.createKey();
  await svc.updateKey(paused.id, { billingState: 'paused' });
  await expectError(t, await createJobRequest(svc.url, paused.key, base), 402, 'billing_blocked');
});

t.test('a job with keywords and a prompt carries the whole vocabulary audit', async (t) => {
  const job = await createJob(svc.url, svc.key, {
    ...jobBody(speech),
    response_format: 'verbose_json',
    keywords: ['metoprolol', 'Lisinopril'],
    prompt: 'Cardiology follow-up.',
  });
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  const done = await waitForEnd(job.poll_url, svc.key);
  t.equal(done.status, 'succeeded');
  const result = (await (await fetch(done.result.download_url, { headers: auth(svc.key) })).json()) as any;
  const audit = result.vocabulary;
  t.equal(audit.schema, 'svc-vocabulary-audit-v3');
  t.equal(audit.enabled, true);
  t.equal(audit.requested_terms, 2);
  t.equal(audit.prompt_supplied, true);
  t.ok(audit.prompted_chunks >= 1, 'the speech was decoded with the prompt');
  t.equal(audit.prompted_terms, 2);
  t.ok(['prompted', 'partial_fallback', 'fallback'].includes(audit.prompt_status), audit.prompt_status);
  t.equal(audit.safety_fallback, audit.fallback_chunks > 0);
  t.equal(audit.delivered + audit.unresolved, audit.requested_terms);
  t.same([...audit.delivered_terms, ...audit.unresolved_terms].sort(), ['Lisinopril', 'metoprolol']);
});

t.test('patterns: refused before a slot exists, then applied chunk by chunk and reported for the recording', async (t) => {
  const entitled = (await svc.createKey({ entitlements: ['patterns', 'language_detection'] })).key;
  const base = { ...jobBody(speech), response_format: 'verbose_json' };
  for (const [patterns, reason] of [
    ['(canary)\\1', /unsupported escape/],
    [Array.from({ length: 33 }, (_, i) => `canary${i}`).join(','), /at most 32 patterns/],
    ['(canary{100}){100}', /more than 2000 instructions/],
  ] as const) {
    const res = await createJobRequest(svc.url, entitled, { ...base, patterns });
    t.equal(res.status, 422);
    const body = (await res.json()) as any;
    t.equal(body.error.code, 'invalid_request');
    t.match(body.error.message, reason);
    t.notOk(body.error.message.includes('canary'), 'never echoed');
  }
  const job = await createJob(svc.url, entitled, { ...base, patterns: '(?i)[a-z]+,(a+)+$' });
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, entitled)).status, 202);
  const done = await waitForEnd(job.poll_url, entitled);
  t.equal(done.status, 'succeeded');
  const result = (await (await fetch(done.result.download_url, { headers: auth(entitled) })).json()) as any;
  const report = result.patterns;
  t.match(report, { schema: 'svc-patterns-v1', requested: 2, budget_exhausted: 0 });
  t.same(
    report.results.map((r: any) => r.index),
    [0, 1],
  );
  t.equal(report.matches, report.results[0].count + report.results[1].count);
  const spans = report.results[0].spans;
  t.equal(spans.length, report.results[0].count);
  t.ok(
    spans.every((s: any, i: number) => s.end <= result.duration + 1e-6 && (i === 0 || s.start >= spans[i - 1].start)),
    "spans in the recording's time, in order over chunks",
  );
  if (spans.length > 0)
    t.ok(spans[spans.length - 1].start > 5 || result.duration <= 5 || !result.segments.some((s: any) => s.start > 5), 'later chunks are shifted');
  for (const s of spans) t.ok(result.text.includes(s.text));
});

t.test('Idempotency-Key: same request, same job; different request, 409', async (t) => {
  const body = jobBody(speech);
  const headers = { 'idempotency-key': 'long-visit-1' };
  const a = await createJobRequest(svc.url, svc.key, body, headers);
  const b = await createJobRequest(
    svc.url,
    svc.key,
    { content_length_bytes: body.content_length_bytes, content_type: 'audio/wav', filename: 'visit.wav' },
    headers,
  );
  t.equal(a.status, 201);
  t.equal(b.status, 201);
  const first = ((await a.json()) as any).id;
  t.equal(((await b.json()) as any).id, first, 'replayed whatever the key order');
  await expectError(t, await createJobRequest(svc.url, svc.key, { ...body, content_length_bytes: 99 }, headers), 409, 'idempotency_conflict');
  // The key is the tenant's, the answer its key's: another key of the tenant sending the same request
  // is refused like other content, never told the job (it could not poll it), and starts none.
  const sibling = await svc.createKey({ tenant: (await svc.stores.keys.authenticate(svc.key))!.tenant });
  await expectError(t, await createJobRequest(svc.url, sibling.key, body, headers), 409, 'idempotency_conflict');
  const again = await createJobRequest(svc.url, svc.key, body, headers);
  t.equal(again.status, 201);
  t.equal(((await again.json()) as any).id, first, 'still the first answer for the key that got it');
});

t.test('the presigned form refuses anything but the signed upload, in S3 terms', { skip: embeddedUploadsOnly() }, async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  const fields = job.upload.fields;
  await expectS3Error(t, await uploadFile(job, speech, { ...fields, 'x-svc-signature': '0'.repeat(64) }), 403, 'SignatureDoesNotMatch');
  await expectS3Error(t, await uploadFile(job, speech, { ...fields, 'Content-Type': 'audio/mpeg' }), 403, 'AccessDenied', /Policy Condition failed/);
  await expectS3Error(t, await uploadFile(job, speech, { ...fields, key: 'uploads/job_other' }), 403, 'AccessDenied', /Policy Condition failed/);
  await expectS3Error(t, await uploadFile(job, speech, { ...fields, acl: 'public-read' }), 403, 'AccessDenied', /Extra input fields/);
  const { policy: _, ...withoutPolicy } = fields;
  await expectS3Error(t, await uploadFile(job, speech, withoutPolicy), 400, 'InvalidArgument');
  await expectS3Error(t, await uploadFile(job, speech.subarray(0, speech.length - 1)), 400, 'EntityTooSmall');
  await expectS3Error(t, await uploadFile(job, new Uint8Array([...speech, 0])), 400, 'EntityTooLarge');
  // A form for one job cannot fill another.
  const other = await createJob(svc.url, svc.key, jobBody(speech));
  await expectS3Error(t, await uploadFile({ upload: { ...other.upload, fields } }, speech), 403, 'AccessDenied', /Policy Condition failed/);
  t.same((await svc.blobFiles()).uploads, [], 'nothing refused was kept');
  // After every refusal the form still works.
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
});

t.test('long poll: answers on timeout with the same state, and at once on a change', async (t) => {
  const job = await createJob(svc.url, svc.key, jobBody(speech));
  let started = Date.now();
  const idle = await poll(job.poll_url, svc.key, '?wait=1');
  t.equal(idle.body.status, 'awaiting_upload');
  t.ok(Date.now() - started >= 900, 'waited for the timeout');
  await expectError(t, await fetch(`${job.poll_url}?wait=soon`, { headers: auth(svc.key) }), 400, 'invalid_request');

  started = Date.now();
  const waiting = poll(job.poll_url, svc.key, '?wait=30');
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  const changed = await waiting;
  t.ok(['accepted', 'running', 'succeeded'].includes(changed.body.status), `returned on the change (${changed.body.status})`);
  t.ok(Date.now() - started < 20_000, 'well before the wait ran out');
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
});

t.test('a long recording exposes provisional results while it runs', async (t) => {
  const long = await readFile(await speechWav(60));
  const job = await createJob(svc.url, svc.key, jobBody(long, { response_format: 'verbose_json' }));
  t.equal((await uploadFile(job, long)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  // Another key of the job's tenant: a provisional result is the creating key's alone.
  const sibling = await svc.createKey({ tenant: (await svc.stores.keys.authenticate(svc.key))!.tenant });
  const unknownPartial = await answerOf(await fetch(`${svc.url}/v1/jobs/job_doesnotexist/partial`, { headers: auth(sibling.key) }));
  let siblingChecked = false;
  const seen: any[] = [];
  let final: any;
  for (;;) {
    const { body } = await poll(job.poll_url, svc.key, '?wait=20');
    if (body.transcription) {
      seen.push(body.transcription);
      const partial = await fetch(body.transcription.partial_result_url, { headers: auth(svc.key) });
      if (partial.status === 200) {
        const content = (await partial.json()) as any;
        t.equal(content.provisional, true);
        t.type(content.text, 'string');
        t.ok(content.result_revision >= body.transcription.result_revision, 'at least the announced revision');
        if (!siblingChecked) {
          siblingChecked = true;
          const theirs = await answerOf(await fetch(body.transcription.partial_result_url, { headers: auth(sibling.key) }));
          t.same(theirs, unknownPartial, "the tenant's other key gets the unknown id's 404 while the owner reads it");
        }
      } else await partial.body?.cancel();
    }
    if (body.status === 'succeeded' || body.status === 'failed') {
      final = body;
      break;
    }
  }
  t.equal(final.status, 'succeeded');
  t.ok(siblingChecked, "a provisional result was read, and refused to the tenant's other key");
  t.ok(seen.length >= 2, `provisional revisions observed (${seen.length})`);
  for (const block of seen) {
    t.match(block, { status: 'processing', provisional: true, partial_result_url: `${job.poll_url}/partial` });
    t.ok(block.completed_audio_seconds > 0 && block.completed_audio_seconds < 60);
  }
  const revisions = seen.map((b) => b.result_revision);
  t.same(
    revisions,
    [...revisions].sort((a, b) => a - b),
    'revisions only grow',
  );
  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  t.ok(Math.abs(result.duration - 60) < 0.2, 'the final result covers the whole recording');
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] });
});

t.test('failures: undecodable bytes and audio under 1 s fail audio_undecodable, audio deleted', async (t) => {
  const noise = await readFile(await randomBytesFile(50_000));
  const short = await readFile(await speechWav(0.5));
  for (const data of [noise, short]) {
    const job = await createJob(svc.url, svc.key, jobBody(data));
    t.equal((await uploadFile(job, data)).status, 204);
    t.equal((await completeJob(job, svc.key)).status, 202);
    const done = await waitForEnd(job.poll_url, svc.key);
    t.equal(done.status, 'failed');
    t.equal(done.error.code, 'audio_undecodable');
    t.notMatch(done.error.message, /ffmpeg|Invalid|header|\.wav/i, 'no decoder output or file names');
    t.notOk(done.result, 'no result');
  }
  t.same(await svc.blobFiles(), { uploads: [], jobs: [] });
});

t.test('audio over max_audio_seconds fails audio_too_long; the envelope states the maximum', async (t) => {
  const small = await startTestService({ SVC_MAX_AUDIO_SECONDS: '10', SVC_INLINE_BOUNDARY_SECONDS: '5' });
  t.teardown(() => small.close());
  const job = await createJob(small.url, small.key, jobBody(speech));
  t.equal(job.max_audio_seconds, 10);
  t.equal((await uploadFile(job, speech)).status, 204);
  t.equal((await completeJob(job, small.key)).status, 202);
  const done = await waitForEnd(job.poll_url, small.key);
  t.match(done, { status: 'failed', error: { code: 'audio_too_long' } });
  t.same(await small.blobFiles(), { uploads: [], jobs: [] });
});

t.test('a diarized job: succeeded with its text, then decorated in place under its max_speakers', async (t) => {
  const { conversation } = await import('../helpers/conversations.js');
  const voices = await conversation({ voices: 4, turns: 12, seed: 1 });
  const data = await readFile(voices.path);
  const job = await createJob(svc.url, svc.key, jobBody(data, { response_format: 'diarized_json', diarize: true, max_speakers: 1 }));
  t.equal((await uploadFile(job, data)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  const done = await waitForEnd(job.poll_url, svc.key, 300_000);
  t.equal(done.status, 'succeeded');
  const download = async () => (await (await fetch(done.result.download_url, { headers: auth(svc.key) })).json()) as any;
  let result = await download();
  // The decoration may already be over; while it is not, the result says so.
  if (result.decoration) t.match(result, { decoration: { status: 'processing', stale_after: String }, word_timing_available: false });
  for (let i = 0; i < 600 && result.decoration; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    result = await download();
  }
  t.notOk('decoration' in result, 'decorated');
  t.equal(result.word_timing_available, true);
  t.same(result.speakers, [{ speaker: 'A' }], 'one label under max_speakers 1');
  t.equal(result.speaker_timing.requested_max_speakers, 1);
  t.comment(`detected ${result.speaker_timing.detected_speaker_count} voices`);
  t.ok(result.speaker_timing.detected_speaker_count >= 2, 'more voices are detected than labelled');
  t.equal(result.speaker_timing.speaker_ceiling_reached, true);
  t.equal(result.speaker_timing.speaker_ceiling_action, 'unlabelled_review_required');
  t.ok(
    result.words.some((w: any) => w.review_required === true && w.speaker === undefined),
    'words of voices over the ceiling are unlabelled, for review',
  );
  t.ok(
    result.words.every((w: any) => (w.speaker !== undefined) !== (w.review_required === true)),
    'each word is labelled or marked for review',
  );
  t.ok(result.segments.every((s: any) => typeof s.start_ms === 'number' && typeof s.start === 'number'));
  t.notOk(
    (await svc.blobFiles()).jobs.some((name) => name.startsWith(job.id)),
    'the audio is deleted once decorated',
  );
});
