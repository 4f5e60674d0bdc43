// bench hostile-audio: the adversarial suite's hostile-audio corpus (test/fixtures/hostile-audio.ts)
// posted to a real `svc-stt serve` child process one file at a time, recording each answer and the
// memory it cost: the server's peak RSS during the request above its level just before (after a
// forced full collection), and the peak RSS of its decoder subprocesses. Figures, not assertions
// (the statuses are asserted by test/adversarial/hostile-audio.test.ts).
//   npm run bench -- hostile-audio [--files N]
// (--files N posts the corpus's first N files only: a smoke run.)
import { readFileSync } from 'node:fs';

import { startAdversarialServer } from '../test/adversarial/lib/adversarial-server.js';
import { postFileForTranscription } from '../test/adversarial/lib/stream-upload.js';
import { HOSTILE_AUDIO } from '../test/fixtures/hostile-audio.js';
import { waitForEnd } from '../test/helpers/jobs-client.js';
import { flag, printResult, printTable, round } from './lib-report.js';

const MIB = 1024 * 1024;
const SAMPLE_MS = 10;

/** RSS of a process, or 0 once it is gone. */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Summed RSS of a process's direct children (ffmpeg and ffprobe run as children of the server). */
function childrenRss(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.reduce((sum, child) => sum + rssOf(child), 0);
  } catch {
    return 0;
  }
}

export async function run(args: string[]): Promise<void> {
  const corpus = HOSTILE_AUDIO.slice(0, Number(flag(args, 'files', String(HOSTILE_AUDIO.length))));
  const server = await startAdversarialServer({ SVC_LOG_LEVEL: 'warn' });
  const rows: Array<Array<string | number>> = [];
  let worstServer = 0;
  let worstDecoder = 0;
  let mismatches = 0;
  try {
    for (const entry of corpus) {
      const path = await entry.path();
      await server.collectGarbage();
      const before = server.rssBytes();
      let peak = before;
      let decoderPeak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, server.rssBytes());
        decoderPeak = Math.max(decoderPeak, childrenRss(server.pid));
      }, SAMPLE_MS);
      const started = performance.now();
      const answer = await postFileForTranscription(server.url, server.keys.valid, path, { model: 'svc-medical-1', response_format: 'json' });
      if (answer.status === 202) await waitForEnd((JSON.parse(answer.body) as { poll_url: string }).poll_url, server.keys.valid);
      const ms = performance.now() - started;
      clearInterval(sampler);
      const growth = (peak - before) / MIB;
      worstServer = Math.max(worstServer, growth);
      worstDecoder = Math.max(worstDecoder, decoderPeak / MIB);
      if (answer.status !== entry.expected.status) mismatches += 1;
      rows.push([entry.name, entry.expected.status, answer.status, Math.round(ms), round(before / MIB, 1), round(growth, 1), round(decoderPeak / MIB, 1)]);
    }
    printTable(['file', 'expected', 'status', 'ms (job incl.)', 'RSS before MiB', 'server peak +MiB', 'decoder peak MiB'], rows);
    printResult('hostile-audio', {
      files: corpus.length,
      status_mismatches: mismatches,
      worst_server_peak_growth_mb: round(worstServer, 1),
      worst_decoder_peak_mb: round(worstDecoder, 1),
      server_alive: server.alive(),
    });
  } finally {
    await server.stop();
  }
}
