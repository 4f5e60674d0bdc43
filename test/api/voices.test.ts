// Enrolled voices end to end (real service, ffmpeg, the VAD, the native diarizer): a voice enrolled once
// names its speaker in a transcription by id (`known_speakers[]`); listings and reads never carry its
// statistics; another tenant's key cannot see, use or delete it (answered exactly as an unknown id);
// deletion is immediate; bad enrolments are 422 naming the field; and every step is an audit line
// with ids only, never the person's name.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { VOICE_AUDIT_EVENTS, VOICE_AUDIT_MESSAGE } from '../../src/application/voice-audit.js';
import { FIXTURE_SAMPLE_RATE, wavFileBytes } from '../helpers/audio-fixtures.js';
import { conversation, CONVERSATION_VOICES, exchange } from '../helpers/conversations.js';
import { completeJob, createJob, createJobRequest, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { referenceClip } from '../helpers/voice-references.js';

/** A person's name: content, never logged. */
const NAME = 'Dr Quorthanna Ames';

let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let clinic: { key: string; id: string; tenant: string };
let stranger: { key: string; id: string; tenant: string };
let talk: Uint8Array;
let enrolment: Uint8Array;
t.before(async () => {
  logs = captureLogs();
  svc = await startTestService({}, { logger: { level: 'info', stream: logs.stream } });
  clinic = await svc.createKey({ tenant: 'clinic-voices' });
  stranger = await svc.createKey({ tenant: 'other-clinic' });
  recordCanary('transcript', NAME);
  talk = await readFile((await conversation({ voices: 2, turns: 8, seed: 1 })).path);
  enrolment = await readFile(await referenceClip(CONVERSATION_VOICES.A, 9));
});
t.teardown(() => svc.close());

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function enrol(key: string, fields: Record<string, string>, audio: Uint8Array = enrolment) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([audio as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'enrolment.wav');
  const res = await fetch(`${svc.url}/v1/voices`, { method: 'POST', body: form, headers: auth(key) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function call(key: string, method: string, path: string) {
  const res = await fetch(`${svc.url}${path}`, { method, headers: auth(key) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function transcribe(key: string, voiceIds: string[]) {
  const form = new FormData();
  for (const [name, value] of Object.entries({ model: 'svc-medical-1', language: 'en', response_format: 'diarized_json', diarize: 'true' }))
    form.append(name, value);
  for (const id of voiceIds) form.append('known_speakers[]', id);
  form.append('file', new Blob([talk as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
  const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: auth(key) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const auditLines = () => logs.lines().filter((l) => l.msg === VOICE_AUDIT_MESSAGE);

t.test('enrol once, name the speaker by id; per tenant only; delete at once; audited by id', async (t) => {
  const enrolled = await enrol(clinic.key, { name: NAME });
  t.equal(enrolled.status, 201);
  const voice = enrolled.body;
  t.match(voice, { object: 'voice', name: NAME, id: /^voice_[0-9A-Za-z]{24}$/ });
  t.same(Object.keys(voice).sort(), ['created_at', 'id', 'name', 'object'], 'no statistics in the answer');

  const listed = await call(clinic.key, 'GET', '/v1/voices');
  t.same(listed.body, { object: 'list', data: [voice] });
  t.same((await call(clinic.key, 'GET', `/v1/voices/${voice.id}`)).body, voice);

  const named = await transcribe(clinic.key, [voice.id]);
  t.equal(named.status, 200);
  t.same(named.body.speakers, [{ speaker: 'A' }, { speaker: NAME }], 'the enrolled clinician is named, the other voice keeps a letter');
  t.match(named.body.speaker_timing.known_speakers, [{ name: NAME, matched: true }]);

  // Another tenant: the voice does not exist for it.
  t.same((await call(stranger.key, 'GET', '/v1/voices')).body, { object: 'list', data: [] });
  const read = await call(stranger.key, 'GET', `/v1/voices/${voice.id}`);
  const unknown = await call(stranger.key, 'GET', `/v1/voices/voice_${'x'.repeat(24)}`);
  t.equal(read.status, 404);
  t.same(read.body, unknown.body, "another tenant's voice is answered exactly as an unknown one");
  t.equal((await call(stranger.key, 'DELETE', `/v1/voices/${voice.id}`)).status, 404);
  const borrowed = await transcribe(stranger.key, [voice.id]);
  t.equal(borrowed.status, 422);
  t.match(borrowed.body.error.message, /known_speakers\[0\] is not a voice enrolled for this key's tenant/);
  t.same(borrowed.body, (await transcribe(stranger.key, [`voice_${'y'.repeat(24)}`])).body, 'and in a request, as an unknown id');

  const deleted = await call(clinic.key, 'DELETE', `/v1/voices/${voice.id}`);
  t.same(deleted, { status: 200, body: { id: voice.id, object: 'voice', deleted: true } });
  t.equal((await call(clinic.key, 'GET', `/v1/voices/${voice.id}`)).status, 404);
  t.equal((await transcribe(clinic.key, [voice.id])).status, 422, 'a deleted voice names nobody');

  const audit = auditLines();
  const events = audit.map((l) => [l.audit, l.keyId, l.voiceId ?? null]);
  t.same(events, [
    [VOICE_AUDIT_EVENTS.enrolled, clinic.id, voice.id],
    [VOICE_AUDIT_EVENTS.listed, clinic.id, null],
    [VOICE_AUDIT_EVENTS.read, clinic.id, voice.id],
    [VOICE_AUDIT_EVENTS.used, clinic.id, voice.id],
    [VOICE_AUDIT_EVENTS.listed, stranger.id, null],
    [VOICE_AUDIT_EVENTS.deleted, clinic.id, voice.id],
  ]);
  t.ok(
    audit.every((l) => l.tenantId === (l.keyId === clinic.id ? clinic.tenant : stranger.tenant)),
    'each line names its tenant',
  );
  t.notMatch(logs.text(), NAME, 'the name is in no log line');
  t.notMatch(logs.text(), /covariance|"mean"/, 'nor any statistic');
});

t.test("/v1/jobs: known_speakers names an enrolled voice when the speakers are attached; not another tenant's", async (t) => {
  const voice = (await enrol(clinic.key, { name: 'Dr Jobs' })).body;
  const fields = { response_format: 'verbose_json', diarize: true, language: 'en' };
  const borrowed = await createJobRequest(svc.url, stranger.key, jobBody(talk, { ...fields, known_speakers: [voice.id] }));
  t.equal(borrowed.status, 422, "another tenant's voice cannot be named by a job");
  t.equal(
    (await createJobRequest(svc.url, clinic.key, jobBody(talk, { response_format: 'verbose_json', known_speakers: [voice.id] }))).status,
    422,
    'needs diarize',
  );
  const job = await createJob(svc.url, clinic.key, jobBody(talk, { ...fields, known_speakers: [voice.id] }));
  t.equal((await uploadFile(job, talk)).status, 204);
  t.equal((await completeJob(job, clinic.key)).status, 202);
  t.equal((await waitForEnd(job.poll_url, clinic.key, 300_000)).status, 'succeeded');
  let result: Record<string, any> = {};
  for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    result = (await poll(job.poll_url, clinic.key, '?include_result=true')).body.result?.content ?? {};
    if (result.decoration === undefined && result.speakers?.length > 0) break;
  }
  t.same(result.speakers, [{ speaker: 'A' }, { speaker: 'Dr Jobs' }]);
  t.match(result.speaker_timing.known_speakers, [{ name: 'Dr Jobs', matched: true }]);
  await call(clinic.key, 'DELETE', `/v1/voices/${voice.id}`);
});

t.test('bad enrolments: 422 naming the field', async (t) => {
  const silence = wavFileBytes(new Int16Array(8 * FIXTURE_SAMPLE_RATE));
  const two = await readFile(
    (await exchange({ voices: [CONVERSATION_VOICES.A, CONVERSATION_VOICES.B], turns: 4, minSeconds: 3, maxSeconds: 4, seed: 3 })).path,
  );
  const cases: Array<[string, Record<string, string>, Uint8Array, number, RegExp]> = [
    ['too short', { name: 'x' }, await readFile(await referenceClip(CONVERSATION_VOICES.A, 3)), 422, /file must be 5 to 30 seconds/],
    ['silence', { name: 'x' }, silence, 422, /file holds too little speech/],
    ['two voices', { name: 'x' }, two, 422, /file holds more than one voice/],
    ['no name', {}, enrolment, 422, /name must be 1 to 64 characters/],
    ['a letter', { name: 'A' }, enrolment, 422, /single capital letter/],
    ['another field', { name: 'x', language: 'en' }, enrolment, 400, /not one of: file, name/],
  ];
  for (const [label, fields, audio, status, message] of cases) {
    const res = await enrol(clinic.key, fields, audio);
    t.equal(res.status, status, label);
    t.match(res.body.error?.message, message, label);
  }
  // Issue 43: the 413 advised /v1/jobs, which does not take enrolments.
  const tooLarge = await enrol(clinic.key, { name: 'x' }, new Uint8Array(18 * 1024 * 1024));
  t.equal(tooLarge.status, 413, 'too large');
  t.match(tooLarge.body.error?.message, /exceeds 16777216 bytes; an enrolment is 5 to 30 s of the speaker alone/);
  t.notMatch(tooLarge.body.error?.message, /v1\/jobs/, 'no advice that does not apply');
  t.same((await call(clinic.key, 'GET', '/v1/voices')).body.data, [], 'nothing was stored');
});
