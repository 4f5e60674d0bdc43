// A request's own VAD parameters (OpenAI's chunking_strategy server_vad) are stored with its job and
// used by the worker for every chunk: a threshold no speech can pass leaves a job with no text, while
// the same audio without it is transcribed.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { poll, waitForEnd } from '../helpers/jobs-client.js';
import { postTranscription, startTestService } from '../helpers/test-service.js';

t.test('server_vad parameters reach the worker', async (t) => {
  const svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '5', SVC_JOB_CHUNK_SECONDS: '5' });
  t.teardown(() => svc.close());
  const audio = await readFile(await speechWav(12));
  const texts: string[] = [];
  const variants: Array<Record<string, string>> = [{}, { 'chunking_strategy[type]': 'server_vad', 'chunking_strategy[threshold]': '1' }];
  for (const fields of variants) {
    const res = await postTranscription(
      svc.url,
      svc.key,
      { model: 'svc-medical-1', language: 'en', response_format: 'json', ...fields },
      { data: audio, name: 'visit.wav', type: 'audio/wav' },
    );
    t.equal(res.status, 202, 'a job');
    const job = (await res.json()) as { poll_url: string };
    t.equal((await waitForEnd(job.poll_url, svc.key)).status, 'succeeded');
    texts.push((await poll(job.poll_url, svc.key, '?include_result=true')).body.result.content.text);
  }
  t.ok(texts[0]!.length > 0, 'transcribed with the service VAD');
  t.equal(texts[1], '', 'no speech at threshold 1: nothing decoded in any chunk');
});
