// Long jobs are cut at pauses, never inside speech (src/pipeline/chunk-cut.ts), on the real service:
// 50 s of continuous speech (sentences with short pauses) crosses the 20 s and 40 s chunk targets;
// each chunk must end in a pause the VAD finds in the whole recording, and the assembled result must
// hold every segment once, in order, none straddling a cut.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, poll, uploadFile, waitForEnd } from '../helpers/jobs-client.js';
import { testModelPath } from '../helpers/test-models.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const CHUNK_SECONDS = 20;
let svc: TestService;

t.before(async () => {
  svc = await startTestService({ SVC_JOB_CHUNK_SECONDS: String(CHUNK_SECONDS) });
});
t.teardown(() => svc.close());

t.test('chunks end in pauses near their target, and the result holds each segment once', async (t) => {
  const path = await speechWav(50);
  const data = await readFile(path);
  const engine = await Engine.open({ model: await testModelPath('micro', 1), workers: 1, vadModel: vadModelPath() });
  const speech = (await engine.detectSpeech(await decodeAudio(path, { maxSeconds: 60, timeoutMs: 30_000 }))).segments;
  await engine.close();
  // Precondition: speech runs across both fixed boundaries, so a cut at 20.000 or 40.000 would split it.
  for (const mark of [20, 40]) {
    const near = speech.some((s) => s.start < mark + 2 && s.end > mark - 2);
    t.ok(near, `speech within 2 s of ${mark} s`);
  }

  const job = await createJob(svc.url, svc.key, jobBody(data, { response_format: 'verbose_json' }));
  t.equal((await uploadFile(job, data)).status, 204);
  t.equal((await completeJob(job, svc.key)).status, 202);
  const cuts = new Set<number>();
  for (;;) {
    const { body } = await poll(job.poll_url, svc.key, '?wait=20');
    if (body.transcription) cuts.add(body.transcription.completed_audio_seconds);
    if (body.status === 'succeeded' || body.status === 'failed') break;
  }
  t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
  t.ok(cuts.size >= 1, `chunks observed (${[...cuts].join(', ')})`);
  for (const cut of cuts) {
    const inside = speech.find((s) => cut > s.start + 0.05 && cut < s.end - 0.05);
    t.notOk(inside, `cut at ${cut} s lies in a pause`);
    const target = Math.round(cut / CHUNK_SECONDS) * CHUNK_SECONDS;
    t.ok(Math.abs(cut - target) <= CHUNK_SECONDS * 0.1 + 1e-6, `cut at ${cut} s is near its target ${target} s`);
  }

  const result = (await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content;
  t.ok(Math.abs(result.duration - 50) < 0.1, `the whole recording (${result.duration} s)`);
  const segments: Array<{ id: string; start: number; end: number }> = result.segments;
  t.same(
    segments.map((s) => s.id),
    segments.map((_, i) => `seg_${i}`),
    'ids in order, none repeated',
  );
  for (let i = 1; i < segments.length; i++) t.ok(segments[i].start >= segments[i - 1].end - 1e-6, `segment ${i} starts after segment ${i - 1} ends`);
  for (const segment of segments) {
    for (const cut of cuts)
      t.notOk(segment.start < cut - 1e-6 && segment.end > cut + 1e-6, `segment ${segment.start}-${segment.end} does not straddle the cut at ${cut}`);
  }
});
