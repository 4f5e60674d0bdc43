// A diarized job's decoration (src/jobs/job-decoration.ts), with real stores (SQLite, local disk), the
// real engine and VAD, and JobRunners built as the service builds them. The diarize stage is wrapped
// at its boundary (the diarizer itself is tested in test/diarization/) to hold it, fail it, or make it
// hang like a dead worker. Checked: `succeeded` as soon as the text is final with `decoration:
// processing` and no word timing; the result replaced in place with speakers that keep their labels
// across chunks; the audio kept until then and deleted after; one webhook event only; a crash during
// decoration taken over by another worker (the dead one's late answer refused); a failure, or too
// many claims, ending as `unavailable` with `review_required` while the job stays `succeeded`; the
// passages marked review_required (speakers beyond the ceiling, or a decoration given up) added to
// the job's usage event once, by the worker whose decoration ends.
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';
import t from 'tap';

import { UsageBilling } from '../../src/billing/usage-billing.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ServiceConfig } from '../../src/config/service-config.js';
import { NO_CLINICAL_TEXT } from '../../src/contract/clinical-text-fields.js';
import { parseLanguageTag } from '../../src/domain/language-families.js';
import { MAX_DECORATION_ATTEMPTS } from '../../src/jobs/job-decoration.js';
import { storedKnownSpeakers } from '../../src/jobs/job-known-speakers.js';
import { serializeJobRequest } from '../../src/jobs/job-request.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import type { PipelineEngines } from '../../src/pipeline/pipeline-engine.js';
import type { Diarize } from '../../src/pipeline/speaker-stage.js';
import { type OpenedEngines, openEngines } from '../../src/service/open-engines.js';
import { newJobId } from '../../src/store/job-record.js';
import type { JobRecord } from '../../src/store/job-store.js';
import { openBlobStore } from '../../src/store/open-blob-store.js';
import { openStores, type Stores } from '../../src/store/open-stores.js';
import { SealedBlobStore } from '../../src/store/sealed-blob-store.js';
import { databasePath } from '../../src/store/sqlite/database.js';
import type { SpeakerVoice } from '../helpers/audio-fixtures.js';
import { type Conversation, conversation, CONVERSATION_VOICES } from '../helpers/conversations.js';
import { diarizationErrorRate } from '../helpers/diarization-error-rate.js';
import { testModelPath } from '../helpers/test-models.js';
import { referenceClip } from '../helpers/voice-references.js';

const CHUNK_SECONDS = 15;
const TENANT = 'tenant-decoration';

let dataDir: string;
let config: ServiceConfig;
let stores: Stores;
let blobs: SealedBlobStore;
let engines: OpenedEngines;
let keyId: string;
let recording: Conversation;

t.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-decoration-'));
  config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_MODEL: await testModelPath('micro'),
    SVC_MAX_TOKENS: '12',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_WORKERS: '1',
    SVC_THREADS_PER_WORKER: '2',
    SVC_LOG_LEVEL: 'silent',
  });
  stores = await openStores({ instanceId: 'decoration-test', dataDir, databaseUrl: null, webhookMasterKey: () => Buffer.alloc(32, 7) });
  blobs = new SealedBlobStore(openBlobStore(dataDir, null).blobs, stores.sealer);
  engines = await openEngines(config);
  keyId = (await stores.keys.create({})).record.id;
  recording = await conversation({ voices: 3, turns: 16, seed: 1 });
});
t.teardown(async () => {
  await engines?.close();
  await stores?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A diarized job of the 3-voice conversation, with a webhook (its event goes to the outbox only). */
async function createJob(maxSpeakers = 4, extra: Record<string, unknown> = {}): Promise<JobRecord> {
  const id = newJobId();
  const upload = blobs.createUploadPath('test');
  await copyFile(recording.path, upload);
  const audioPath = await blobs.forTenant(TENANT).moveToJobAudio(upload, id);
  const request = serializeJobRequest(
    {
      task: 'transcribe',
      vad: null,
      knownSpeakerReferences: [],
      enrolledVoiceIds: [],
      model: 'svc-medical-1',
      responseFormat: 'diarized_json',
      language: { mode: 'explicit', language: parseLanguageTag('en')!, source: 'requested' },
      diarize: true,
      maxSpeakers,
      minSpeakers: 1,
      wordTimestamps: false,
      dictionary: false,
      vocabulary: [],
      prompt: null,
      patterns: [],
      webhookUrl: 'https://receiver.example/hook',
      profile: 'default',
      stream: false,
      temperature: 0,
      logprobs: false,
      clinicalText: NO_CLINICAL_TEXT,
      multichannel: false,
    },
    extra,
  );
  return stores.jobs.create({
    id,
    tenant: TENANT,
    keyId,
    status: 'accepted',
    request,
    audioPath,
    audioSeconds: null,
    webhookUrl: 'https://receiver.example/hook',
    webhookSecretVersion: 1,
  });
}

/** The service's stages with the diarize call replaced. */
function withDiarize(diarize: (real: Diarize) => Diarize): PipelineEngines {
  const stages = { ...engines.stages };
  for (const model of Object.keys(stages) as Array<keyof PipelineEngines>) {
    const real = stages[model];
    stages[model] = (work) => {
      const bound = real(work);
      return { ...bound, diarize: diarize(bound.diarize) };
    };
  }
  return stages;
}

function runner(name: string, stages: PipelineEngines, decorationLeaseMs?: number): JobRunner {
  const r = new JobRunner({
    config,
    instanceId: name,
    jobs: stores.jobs,
    blobs,
    keys: stores.keys,
    engines: engines.engines,
    stages,
    modelBuilds: engines.modelBuilds,
    events: { notify: () => {} } as never,
    billing: new UsageBilling(stores.usage, stores.billing),
    voices: stores.voices,
    chunkSeconds: CHUNK_SECONDS,
    concurrency: 1,
    ...(decorationLeaseMs ? { decorationLeaseMs } : {}),
  });
  r.start();
  return r;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, limitMs = 180_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const job = async (id: string) => (await stores.jobs.getById(id))!;
const resultOf = async (id: string) => JSON.parse((await blobs.forTenant(TENANT).readResult((await job(id)).resultPath!)).toString('utf8'));
const resultFiles = async (id: string) => (await readdir(join(dataDir, 'blobs', 'results'))).filter((f) => f.startsWith(id));

/**
 * The store releases a decoration before the worker deletes the files it no longer references (the
 * swap is the commit; deleting is clean-up after it), so a test waits for the deletions to be done.
 */
const filesDeleted = (id: string) =>
  until(
    'the unreferenced audio and results to be deleted',
    async () => (await resultFiles(id)).length === 1 && !(await readdir(join(dataDir, 'blobs', 'jobs'))).some((f) => f.startsWith(id)),
  );

function queryDatabase<T>(sql: string, id: string): T {
  const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get(id) as T;
  } finally {
    db.close();
  }
}

const webhookEvents = (id: string) => queryDatabase<{ n: number }>('SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = ?', id).n;

/** The job's usage events: one, recorded with its success; the decoration adds its review_required passages to it. */
const usageOf = (id: string) =>
  queryDatabase<{ n: number; review_required: number }>(
    "SELECT count(*) AS n, sum(review_required) AS review_required FROM usage_events WHERE event_key LIKE 'job:' || ? || '%'",
    id,
  );

const passagesToReview = (result: { segments: Array<{ review_required?: true }> }) => result.segments.filter((s) => s.review_required).length;

/** A gate a stage waits at until opened; aborting the call rejects it (shutdown). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = { value: false };
  const wait = async (signal?: AbortSignal) => {
    reached.value = true;
    await new Promise<void>((resolve, reject) => {
      void opened.then(resolve);
      signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
    });
  };
  return { open, wait, reached };
}

t.test('succeeded with the final text first; then speakers and words replace the result in place', async (t) => {
  const held = gate();
  const r = runner(
    'decorate-1',
    withDiarize((real) => async (input, regions, signal) => {
      await held.wait(signal);
      return real(input, regions, signal);
    }),
  );
  t.teardown(() => r.stop(0));
  const created = await createJob();

  await until('the text to be final', async () => (await job(created.id)).status === 'succeeded' && held.reached.value);
  const pending = await job(created.id);
  t.ok(pending.completedAudioSeconds > CHUNK_SECONDS, 'the recording took several chunks');
  t.equal(pending.decoration, 'processing');
  t.ok(pending.audioPath && (await blobs.exists(pending.audioPath)), 'the audio is kept while the decoration runs');
  const interim = await resultOf(created.id);
  t.equal(interim.decoration.status, 'processing');
  t.ok(Date.parse(interim.decoration.stale_after) > Date.now(), 'stale_after is ahead');
  t.equal(interim.word_timing_available, false);
  t.notOk('words' in interim, 'no words yet');
  t.same(interim.speakers, []);
  t.ok(interim.segments.every((s: { speaker: string }) => s.speaker === 'unknown'));
  t.equal(interim.speaker_timing.requested_max_speakers, 4);

  held.open();
  await until('the decoration to end', async () => (await job(created.id)).decoration === null);
  await filesDeleted(created.id);
  const final = await resultOf(created.id);
  const done = await job(created.id);
  t.equal(done.status, 'succeeded');
  t.notOk('decoration' in final, 'decoration absent when finished');
  t.equal(final.word_timing_available, true);
  t.equal(final.text, interim.text, 'the text is unchanged');
  t.equal(
    final.segments.map((s: { text: string }) => s.text).join(' '),
    interim.segments.map((s: { text: string }) => s.text).join(' '),
    'the wording is unchanged',
  );
  t.ok(final.speakers.length >= 2, `${final.speakers.length} speakers`);
  t.ok(final.words.length > 0 && final.words.every((w: { speaker?: string }) => typeof w.speaker === 'string'), 'every word has its speaker');
  t.ok(final.metadata.processing_ms.diarization > 0);
  t.equal(final.speaker_timing.detected_speaker_count, final.speakers.length);
  // Global diarization: one voice keeps its label across the 15 s chunks, so the labels score like
  // the whole recording's (a label per chunk would not).
  const score = diarizationErrorRate(recording.turns, final.speaker_segments);
  t.ok(score.der <= 0.4, `DER of the decorated job ${score.der.toFixed(3)}`);
  t.equal(done.audioPath, null);
  t.equal(done.partialPath, null);
  t.same(await readdir(join(dataDir, 'blobs', 'jobs')), [], 'the audio is deleted once decorated');
  t.same(await resultFiles(created.id), [done.resultPath!.split('/').pop()], 'one result is left');
  t.equal(webhookEvents(created.id), 1, 'no second webhook');
  t.match(usageOf(created.id), { n: 1, review_required: passagesToReview(final) }, 'metered once, with the passages to review');
});

t.test('passages of voices beyond max_speakers are metered as review_required with the job', async (t) => {
  const r = runner('decorate-ceiling', engines.stages);
  t.teardown(() => r.stop(0));
  const created = await createJob(1);
  await until('the decoration to end', async () => {
    const now = await job(created.id);
    return now.status === 'succeeded' && now.decoration === null;
  });
  const final = await resultOf(created.id);
  t.equal(final.speakers.length, 1, 'one voice labelled');
  t.equal(final.speaker_timing.speaker_ceiling_action, 'unlabelled_review_required');
  const passages = passagesToReview(final);
  t.ok(passages > 0, `${passages} passages to review`);
  t.match(usageOf(created.id), { n: 1, review_required: passages });
});

t.test('a worker dies during the decoration: another takes it over, the late answer is refused', async (t) => {
  const dead = gate();
  const a = runner(
    'decorate-dead',
    withDiarize((real) => async (input, regions, signal) => {
      // Like a crashed process: the lease is not renewed and the call ignores shutdown.
      await dead.wait();
      return real(input, regions, signal);
    }),
    400,
  );
  // One speaker named: the passages of the others are to be reviewed, counted once whoever ends it.
  const created = await createJob(1);
  await until('the first decoration to start', async () => dead.reached.value);
  t.equal((await job(created.id)).decoration, 'processing');
  const b = runner('decorate-alive', engines.stages, 400);
  t.teardown(async () => {
    dead.open();
    await Promise.all([a.stop(0), b.stop(0)]);
  });
  await until('the decoration to be taken over and finished', async () => (await job(created.id)).decoration === null);
  const done = await job(created.id);
  t.equal(done.decorationAttempts, 2, 'a second claim finished it');
  const final = await resultOf(created.id);
  t.equal(final.speakers.length, 1);

  // The dead worker wakes up and finishes: its result must not replace the holder's. Its runner,
  // draining, returns once that decoration has ended.
  dead.open();
  await a.stop(120_000);
  await until('the late answer to be dropped', async () => (await resultFiles(created.id)).length === 1);
  t.same(await resultOf(created.id), final, 'the result is the one the lease holder wrote');
  t.equal((await job(created.id)).resultPath, done.resultPath);
  t.equal(webhookEvents(created.id), 1, 'no second webhook');
  t.ok(passagesToReview(final) > 0, 'passages to review');
  t.same(usageOf(created.id), { n: 1, review_required: passagesToReview(final) }, 'the late answer adds nothing to the metering');
});

t.test('a failed decoration is unavailable and marked for review; the job stays succeeded', async (t) => {
  const r = runner(
    'decorate-fails',
    withDiarize(() => async () => {
      throw new Error('the diarizer broke');
    }),
  );
  t.teardown(() => r.stop(0));
  const created = await createJob();
  await until('the decoration to end', async () => (await job(created.id)).decoration === 'unavailable');
  await filesDeleted(created.id);
  const done = await job(created.id);
  t.equal(done.status, 'succeeded');
  const result = await resultOf(created.id);
  t.same(result.decoration, { status: 'unavailable', review_required: true });
  t.equal(result.word_timing_available, false);
  t.notOk('words' in result);
  t.ok(result.text.length > 0, 'the text is served');
  t.equal(done.audioPath, null, 'the audio is deleted');
  t.same(await resultFiles(created.id), [done.resultPath!.split('/').pop()]);
  t.equal(webhookEvents(created.id), 1);
  t.match(usageOf(created.id), { n: 1, review_required: 1 }, 'the whole transcript is one passage to review');
});

t.test('a decoration claimed too often (it keeps killing its worker) is given up as unavailable', async (t) => {
  const dead = gate();
  const a = runner(
    'decorate-crashes',
    withDiarize(() => async () => {
      await dead.wait();
      throw new Error('unreachable');
    }),
    300,
  );
  const created = await createJob();
  await until('the first decoration to start', async () => dead.reached.value);
  // Two more workers claim it and die too (their leases run out).
  for (const ghost of ['ghost-1/0', 'ghost-2/0']) {
    const claimed = await until('the lease to run out', () => stores.jobs.claimDecoration(ghost, Date.now(), 300), 10_000);
    t.equal(claimed.id, created.id);
  }
  t.equal((await job(created.id)).decorationAttempts, MAX_DECORATION_ATTEMPTS);
  const b = runner('decorate-last', engines.stages, 300);
  t.teardown(async () => {
    dead.open();
    await Promise.all([a.stop(0), b.stop(0)]);
  });
  await until('the decoration to be given up', async () => (await job(created.id)).decoration === 'unavailable');
  const done = await job(created.id);
  t.equal(done.status, 'succeeded');
  t.same((await resultOf(created.id)).decoration, { status: 'unavailable', review_required: true });
  t.equal(done.audioPath, null);
  t.match(usageOf(created.id), { n: 1, review_required: 1 });
});

t.test('known speakers: a clip stored with the job and an enrolled voice name their voices; a voice deleted meanwhile names nobody', async (t) => {
  const engine = engines.engines['svc-medical-1'];
  const profileOf = async (voice: SpeakerVoice) => {
    const bytes = await readFile(await referenceClip(voice));
    const pcm = Float32Array.from(new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2), (x) => x / 32768);
    return (await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments)).profiles[0];
  };
  const doctor = await profileOf(CONVERSATION_VOICES.A);
  const nurse = await stores.voices.create('tenant-decoration', 'Nurse Bell', await profileOf(CONVERSATION_VOICES.B), Date.now());
  const gone = await stores.voices.create('tenant-decoration', 'Dr Gone', await profileOf(CONVERSATION_VOICES.C), Date.now());
  const knownSpeakers = storedKnownSpeakers([
    { name: 'Dr Ames', profile: doctor, voiceId: null },
    { name: nurse.name, profile: doctor, voiceId: nurse.id },
    { name: gone.name, profile: doctor, voiceId: gone.id },
  ]);
  t.same(Object.keys(knownSpeakers[1]), ['voiceId'], 'an enrolled voice is stored by id only');
  await stores.voices.remove('tenant-decoration', gone.id);
  const r = runner('decorate-known', engines.stages);
  t.teardown(() => r.stop(0));
  const created = await createJob(4, { knownSpeakers });
  await until('the decoration to end', async () => (await job(created.id)).status === 'succeeded' && (await job(created.id)).decoration === null);
  const result = await resultOf(created.id);
  t.same(
    result.speakers.map((s: { speaker: string }) => s.speaker),
    ['A', 'Dr Ames', 'Nurse Bell'],
    'the clip and the enrolled voice name theirs; the third voice (its enrolment deleted) keeps a letter',
  );
  t.match(result.speaker_timing.known_speakers, [
    { name: 'Dr Ames', matched: true },
    { name: 'Nurse Bell', matched: true },
  ]);
  t.equal(result.speaker_timing.known_speakers.length, 2, 'the deleted voice is not used');
});
