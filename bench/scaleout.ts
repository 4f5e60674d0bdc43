// bench scaleout: a batch of jobs through one worker process versus two, on PostgreSQL + S3
// (s3rver) with a separate api process (test/helpers/scale-out-cluster.ts). Each worker runs one
// engine worker with one thread, so two processes are two cores' worth of work. The batch time
// runs from the first `complete` to the last `succeeded`; the yardstick is the one-worker batch of
// the same run (rounds alternate 1, 2, 1, 2...; medians). The bar (issue 12; docs/DESIGN.md
// "Benchmark bars"): speedup >= 1.6 and no job lost.
//   npm run bench -- scaleout [--jobs 12] [--seconds 30] [--rounds 3] [--model tiny] [--max-tokens 16]
import { readFile } from 'node:fs/promises';

import { openPostgres } from '../src/store/postgres/database.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { completeJob, createJob, jobBody, uploadFile } from '../test/helpers/jobs-client.js';
import { startScaleOutCluster } from '../test/helpers/scale-out-cluster.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

interface Batch {
  workers: number;
  seconds: number;
  succeeded: number;
  lost: number;
}

async function batch(workers: number, jobs: number, audio: Uint8Array, env: Record<string, string>): Promise<Batch> {
  const cluster = await startScaleOutCluster({ workers, env });
  const db = await openPostgres(cluster.databaseUrl);
  try {
    const created = [];
    for (let i = 0; i < jobs; i++) {
      const job = await createJob(cluster.api.url, cluster.key, jobBody(audio, { language: 'en' }));
      const uploaded = await uploadFile(job, audio);
      if (uploaded.status !== 204) throw new Error(`upload: ${uploaded.status}`);
      created.push(job);
    }
    const started = performance.now();
    for (const job of created) {
      const completed = await completeJob(job, cluster.key);
      if (completed.status !== 202) throw new Error(`complete: ${completed.status}`);
    }
    // The batch is over when every job is terminal (or after 30 minutes: what is left is lost).
    const limit = started + 30 * 60_000;
    let succeeded = 0;
    let ended = 0;
    while (performance.now() < limit) {
      const { rows } = await db.query<{ succeeded: number; ended: number }>(
        `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, ` +
          `count(*) FILTER (WHERE status IN ('succeeded', 'failed'))::int AS ended FROM jobs`,
      );
      ({ succeeded, ended } = rows[0]);
      if (ended === jobs) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { workers, seconds: (performance.now() - started) / 1000, succeeded, lost: jobs - succeeded };
  } finally {
    await db.close();
    await cluster.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const jobs = Number(flag(args, 'jobs', '12'));
  const seconds = Number(flag(args, 'seconds', '30'));
  const rounds = Number(flag(args, 'rounds', '3'));
  const model = flag(args, 'model', 'tiny') as 'tiny';
  const maxTokens = flag(args, 'max-tokens', '16');
  const audio = await readFile(await speechWav(seconds));
  const env = {
    SVC_MODEL: await testModelPath(model),
    // Random weights run away: greedy, a token cap, no fallback (compare like with like).
    SVC_MAX_TOKENS: maxTokens,
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_BEAM_SIZE: '1',
    SVC_WORKERS: '1',
    SVC_THREADS_PER_WORKER: '1',
  };
  const batches: Batch[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const workers of [1, 2]) batches.push(await batch(workers, jobs, audio, env));
  }
  const timeOf = (workers: number) => median(batches.filter((b) => b.workers === workers).map((b) => b.seconds));
  const t1 = timeOf(1);
  const t2 = timeOf(2);
  printTable(
    ['round', 'worker processes', 'batch s', 'jobs/min', 'succeeded', 'lost'],
    batches.map((b, i) => [Math.floor(i / 2) + 1, b.workers, round(b.seconds, 2), round((jobs / b.seconds) * 60, 1), b.succeeded, b.lost]),
  );
  const lost = batches.reduce((sum, b) => sum + b.lost, 0);
  console.log(
    `\n${jobs} jobs of ${seconds} s (${model}, ${maxTokens} tokens max) per batch; speedup ${round(t1 / t2, 2)} (bar: >= 1.6), lost ${lost} (bar: 0)`,
  );
  printResult('scaleout', {
    speedup: round(t1 / t2, 3),
    lost,
    t1_seconds: round(t1, 2),
    t2_seconds: round(t2, 2),
    jobs,
    audio_seconds: seconds,
    model,
    rounds,
  });
}
