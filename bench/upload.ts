// bench upload: one presigned upload of 1 GiB (by default) through the embedded upload target into
// job storage, with the server in its own process so its memory is measured alone. The bar
// (docs/DESIGN.md "Benchmark bars"): RSS growth under 64 MiB while the whole file streams to disk.
// What sealing costs (issue 48: throughput within 10 % of an unsealed upload): the server seals on its
// one event loop, in series with parsing and writing, so the same bytes sealed alone in this process,
// in the same run, say how much of the upload's time it took; an unsealed upload would take about that
// much less (an estimate: no unsealed path exists to run).
//   npm run bench -- upload [--mib 1024]
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { firstKeyPath } from '../src/service/first-key-file.js';
import { sealStream } from '../src/store/sealed-stream.js';
import { serve, serveEnv } from '../test/helpers/serve-process.js';
import { flag, printResult, printTable, round } from './lib-report.js';

/** The warm-up upload's size. */
const WARM_UP_BYTES = 16 * 1024 * 1024;

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

export async function run(args: string[]): Promise<void> {
  const mib = Number(flag(args, 'mib', '1024'));
  const size = mib * 1024 * 1024;
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-upload-'));
  // The server's ready record is read as the tests read it (it became a JSON log record; this bench
  // waited for a plain `listening URL` line and hung).
  const server = await serve(await serveEnv(dataDir));
  const child = server.child;
  try {
    const url = server.url;
    const key = readFileSync(firstKeyPath(dataDir), 'utf8').trim();
    // A first, small upload before the baseline: what the first one pays once (the multipart parser,
    // the tenant's data key and the sealing's cipher, the job store's statements, the allocator's
    // first arenas) is not growth with the file's size, which is what the bar is about.
    if ((await upload(url, key, WARM_UP_BYTES)).status !== 204) throw new Error('the warm-up upload failed');
    await new Promise((r) => setTimeout(r, 1000));
    const baseline = rssBytes(child.pid!);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(child.pid!))), 50);
    const { status, seconds } = await upload(url, key, size);
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(child.pid!));
    if (status !== 204) throw new Error(`upload answered ${status}`);
    const growthMb = (peak - baseline) / (1024 * 1024);
    const mbPerS = mib / seconds;
    const sealSeconds = await sealingSeconds(size);
    const sealShare = sealSeconds / seconds;
    printTable(
      ['MiB', 'seconds', 'MiB/s', 'RSS before MiB', 'RSS peak MiB', 'growth MiB', 'sealing alone s', 'share of upload'],
      [
        [
          mib,
          round(seconds, 2),
          round(mbPerS, 1),
          round(baseline / 2 ** 20, 1),
          round(peak / 2 ** 20, 1),
          round(growthMb, 1),
          round(sealSeconds, 2),
          `${round(sealShare * 100, 1)} %`,
        ],
      ],
    );
    console.log("bars: RSS growth < 64 MiB; sealing within 10 % of the upload's time");
    printResult('upload', {
      mib,
      rss_growth_mb: round(growthMb, 1),
      mb_per_s: round(mbPerS, 1),
      bar_mb: 64,
      passes: growthMb < 64,
      sealing_mb_per_s: round(mib / sealSeconds, 1),
      sealing_share: round(sealShare, 3),
      sealing_passes: sealShare <= 0.1,
    });
  } finally {
    child.kill('SIGTERM');
    await server.exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Seconds to seal `size` bytes in 1 MiB chunks with the server's stream sealer, nothing else done. */
async function sealingSeconds(size: number): Promise<number> {
  const sealer = sealStream(randomBytes(32), 1, 'bench/upload');
  sealer.resume();
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  const started = performance.now();
  for (let sent = 0; sent < size; sent += chunk.length) {
    if (!sealer.write(size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent))) await new Promise((r) => sealer.once('drain', r));
  }
  await new Promise((resolve) => sealer.end(resolve));
  return (performance.now() - started) / 1000;
}

/** A job of `size` bytes created and its file posted to the embedded upload target; its status and seconds. */
async function upload(url: string, key: string, size: number): Promise<{ status: number; seconds: number }> {
  const created = await fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ filename: 'long.wav', content_type: 'audio/wav', content_length_bytes: size }),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
  const job = (await created.json()) as { upload: { url: string; fields: Record<string, string> } };
  const boundary = '----svc-bench-upload';
  const head =
    Object.entries(job.upload.fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(job.upload.url, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(Buffer.byteLength(head) + size + Buffer.byteLength(tail)),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
  return { status, seconds: (performance.now() - started) / 1000 };
}
