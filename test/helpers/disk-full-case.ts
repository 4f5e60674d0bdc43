// The fault matrix's disk case on the embedded default (issue 49): one `serve` on SQLite whose whole
// data folder (database, blobs, upload spool) is a small tmpfs of the case's own. The fault fills it
// to the last byte with a file of the case's; meanwhile an upload that cannot fit is tried, and the
// usual requests keep arriving; then the file is removed. Beyond the common expectations (503 with
// Retry-After or success, never 500 or a hang; not ready while full; every job accepted before the
// fault succeeds exactly once after), the case checks that requests that needed the disk were
// refused (it was really full), that the upload that did not fit was refused with 503 and left no
// spooled part or accepted job behind, and that SQLite's integrity check passes afterwards.
import { open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { localBlobRoot } from '../../src/store/local-blob-store.js';
import { speechWav } from './audio-fixtures.js';
import { sqliteLedger } from './fault-ledgers.js';
import { type Fault, type FaultCaseOptions, type FaultCaseReport, type FaultTarget, runFaultCase } from './fault-scenario.js';
import { type CreatedJob, createJobRequest, jobBody, poll, uploadFile } from './jobs-client.js';
import { firstKey, kill, serve, serveEnv } from './serve-process.js';
import { mountTmpfs } from './tmpfs-mount.js';

/** Room for the database, the model-free data folder and the jobs' audio above the service's 64 MiB floor. */
const TMPFS_MB = 96;
const FILLER = 'filler.bin';

/** Fills the file system of `dir` to the last byte with one file; ENOSPC ends it. */
async function fill(path: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (const size of [1 << 20, 4096, 512]) {
      const block = Buffer.alloc(size);
      for (;;) {
        try {
          await handle.write(block);
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    await handle.close().catch(() => {});
  }
}

/** What the upload that could not fit got: each step's status and Retry-After. */
interface UnfitUpload {
  create: number;
  createRetryAfter: string | null;
  job: CreatedJob | null;
  upload: number | null;
  uploadRetryAfter: string | null;
}

function diskFull(dataDir: string, api: string, key: string, unfitAudio: Buffer): Fault {
  const filler = join(dataDir, FILLER);
  let unfit: UnfitUpload | null = null;
  return {
    down: async () => {
      await fill(filler);
      const created = await createJobRequest(api, key, jobBody(unfitAudio, { language: 'en' }));
      const job = created.status === 201 ? ((await created.json()) as CreatedJob) : null;
      if (!job) await created.arrayBuffer();
      const uploaded = job ? await uploadFile(job, unfitAudio) : null;
      await uploaded?.arrayBuffer();
      unfit = {
        create: created.status,
        createRetryAfter: created.headers.get('retry-after'),
        job,
        upload: uploaded?.status ?? null,
        uploadRetryAfter: uploaded?.headers.get('retry-after') ?? null,
      };
    },
    up: () => rm(filler, { force: true }),
    verify: async () => {
      const failures: string[] = [];
      if (!unfit) return ['the upload that could not fit was not tried'];
      const refused = unfit.job === null ? [unfit.create, unfit.createRetryAfter] : [unfit.upload, unfit.uploadRetryAfter];
      if (refused[0] !== 503 || refused[1] === null) failures.push(`the upload that could not fit got ${JSON.stringify(unfit)}, not 503 with Retry-After`);
      if (unfit.job) {
        const { body } = await poll(unfit.job.poll_url, key);
        if (body.status !== 'awaiting_upload') failures.push(`the job whose upload could not fit is ${body.status}, not awaiting_upload`);
      }
      const parts = (await readdir(join(localBlobRoot(dataDir), 'uploads'))).filter((name) => name.endsWith('.part'));
      if (parts.length > 0) failures.push(`spooled parts left behind: ${parts.length}`);
      const ledger = await sqliteLedger(dataDir);
      const integrity = await ledger.integrity().finally(() => ledger.close());
      if (integrity !== 'ok') failures.push(`SQLite integrity_check: ${integrity}`);
      return failures;
    },
  };
}

/**
 * The case's own failures beside the report's: the inline requests (which spool their body) must
 * have met the full disk, and the jobs it interrupted must have been given back as from an outage,
 * neither failed nor given up on (the server logs either).
 */
export function diskFullFailures(report: FaultCaseReport, log: string): string[] {
  const failures: string[] = [];
  if ((report.duringFault.inline['503'] ?? 0) === 0) failures.push('no inline request was refused during the fault: the disk was not full');
  for (const line of ['job failed unexpectedly', 'recording a job outcome failed']) if (log.includes(line)) failures.push(`the server logged "${line}"`);
  return failures;
}

/** Mounts the tmpfs, starts `serve` on it, runs the case, and stops and unmounts whatever happened. */
export async function runDiskFullCase(options: FaultCaseOptions): Promise<FaultCaseReport> {
  const mount = await mountTmpfs(TMPFS_MB);
  try {
    const server = await serve(await serveEnv(mount.dir, { SVC_JOB_CHUNK_SECONDS: '5' }));
    try {
      const key = await firstKey(mount.dir);
      const target: FaultTarget = { api: server, processes: () => [server], key, webhookSecret: null, openLedger: () => sqliteLedger(mount.dir) };
      const unfitAudio = await readFile(await speechWav(60));
      const report = await runFaultCase(target, diskFull(mount.dir, server.url, key, unfitAudio), options);
      return { ...report, caseFailures: [...report.caseFailures, ...diskFullFailures(report, server.stdout() + server.stderr())] };
    } finally {
      await kill(server);
    }
  } finally {
    await mount.unmount();
  }
}
