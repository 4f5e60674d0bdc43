// bench peer: the service against whisper.cpp's own whisper-server, built beside whisper-cli from the
// same pinned source and flags (CMakeLists.txt), on the same model file and the same cores, greedy
// without temperature fallback, language given, no token cap on either side, alternating:
//   alone       one request of `seconds` of speech, nothing else running: latency, ours / theirs;
//   concurrent  `clients` clients sending `requests` each back to back, all at once: wall time until
//               the last answer, ours / theirs, and the worst latency a client saw.
// whisper-server answers one request at a time with all its threads; the service runs its default
// pool for this box (one single-threaded worker per core) and decodes a recording's windows at once.
//
// Like with like: the ratios compare time for work, so the bench counts the work each side did for one
// request: encoder runs and decoder steps. Ours from the service's /metrics
// (svc_stt_engine_encoder_runs_total, svc_stt_engine_decoder_steps_total); theirs from whisper-cli run
// once on the same file with whisper-server's decoding settings (greedy, best of 2, -ml 60 with token
// timestamps, no fallback): the same library and parameters decode the same tokens, and whisper-cli
// prints its run counts. A generated model's random weights can make one side's decoder loop to its
// token limit on a window where the other's stops (the text's length does not show it: a looping
// decoder's tokens mostly collapse into nothing); then the ratios compare different work and the bench
// says so.
//   npm run bench -- peer [--rounds 5] [--concurrent-rounds 3] [--seconds 50] [--clients 4] [--requests 2]
//                         [--arch tiny] [--model-seed 1] [--speech-seed 9]
// Bars (docs/DESIGN.md "Benchmark bars"): alone <= 0.9, concurrent <= 0.7, on like work.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadConfig } from '../src/config/load-config.js';
import { startService } from '../src/service/start-service.js';
import { speechWav } from '../test/helpers/audio-fixtures.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { runWhisperCli } from '../test/helpers/whisper-cli.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const WHISPER_SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'bin', 'whisper-server');
const PEER_PORT = 18_931;
const MODEL_ID = 'svc-medical-1';

/** One request; resolves with the characters of text it answered. */
type Send = () => Promise<number>;

/** The work behind one answer: encoder runs (one per window) and decoder steps (one per token sampled). */
interface Work {
  encoderRuns: number;
  decoderSteps: number;
}

/**
 * Whether two answers took comparable work: as many encoder runs, and decoder steps within a fifth of
 * each other (or 10 steps, about 25 ms on tiny with two threads, for answers of a few tokens).
 */
function likeWithLike(ours: Work, theirs: Work): boolean {
  const [few, many] = [Math.min(ours.decoderSteps, theirs.decoderSteps), Math.max(ours.decoderSteps, theirs.decoderSteps)];
  return ours.encoderRuns === theirs.encoderRuns && many - few <= Math.max(10, 0.2 * many);
}

/** The service's work counters for the engine serving the model the bench asks for (among other ids, where they share it). */
async function serviceWork(url: string): Promise<Work> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const served = `model="(?:[^"]*,)?${MODEL_ID}(?:,[^"]*)?"`;
  const total = (name: string) => Number(new RegExp(`^${name}\\{${served}[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { encoderRuns: total('svc_stt_engine_encoder_runs_total'), decoderSteps: total('svc_stt_engine_decoder_steps_total') };
}

/** whisper-server's work on `wav`: whisper-cli with the server's decoding settings counts it. */
async function peerWork(model: string, wav: string, threads: number): Promise<Work> {
  // whisper-server: greedy (beam -1), best_of 2, max_len 60 (token timestamps), no fallback, no context.
  const cli = await runWhisperCli({ model, wav, threads, language: 'en', timings: true, extraArgs: ['-bo', '2', '-ml', '60'] });
  const { encode, decode } = cli.runs!;
  // whisper prints at least 1 run; our steps also count each window's prompt pass (differential.test.ts).
  return { encoderRuns: encode, decoderSteps: decode + encode };
}

async function startPeer(model: string, threads: number): Promise<{ process: ChildProcess; url: string }> {
  const url = `http://127.0.0.1:${PEER_PORT}`;
  const child = spawn(WHISPER_SERVER, ['-m', model, '-t', String(threads), '-l', 'en', '-nf', '--host', '127.0.0.1', '--port', String(PEER_PORT)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`whisper-server exited (${child.exitCode}): ${log}`);
    try {
      await fetch(url);
      return { process: child, url };
    } catch {
      if (Date.now() > until) throw new Error(`whisper-server did not listen: ${log}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** `clients` clients sending `requests` each, back to back: the wall time and the worst latency, in ms. */
async function concurrently(send: Send, clients: number, requests: number): Promise<{ wallMs: number; worstMs: number }> {
  const started = performance.now();
  let worst = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < requests; i++) {
        const t0 = performance.now();
        await send();
        worst = Math.max(worst, performance.now() - t0);
      }
    }),
  );
  return { wallMs: performance.now() - started, worstMs: worst };
}

async function timed(send: Send): Promise<number> {
  const t0 = performance.now();
  await send();
  return performance.now() - t0;
}

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '5'));
  const concurrentRounds = Number(flag(args, 'concurrent-rounds', '3'));
  const seconds = Number(flag(args, 'seconds', '50'));
  const clients = Number(flag(args, 'clients', '4'));
  const requests = Number(flag(args, 'requests', '2'));
  const arch = flag(args, 'arch', 'tiny') as 'tiny';
  const modelSeed = Number(flag(args, 'model-seed', '1'));
  const speechSeed = Number(flag(args, 'speech-seed', '9'));
  const cores = availableParallelism();
  const model = await testModelPath(arch, modelSeed);
  const wavPath = await speechWav(seconds, { seed: speechSeed });
  const wav = await readFile(wavPath);
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-peer-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_CONSOLE_PORT: '0',
    SVC_MODEL: model,
    SVC_MAX_TOKENS: '0',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_LOG_LEVEL: 'silent',
    SVC_RATE_LIMIT_PER_MINUTE: '100000',
  });
  const service = await startService(config, { logger: false });
  const peer = await startPeer(model, cores);
  const ours: Send = async () => {
    const form = new FormData();
    form.append('model', MODEL_ID);
    form.append('language', 'en');
    form.append('file', new Blob([wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
    const res = await fetch(`${service.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${service.firstKey}` } });
    if (res.status !== 200) throw new Error(`svc-stt answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { text: string }).text.length;
  };
  const theirs: Send = async () => {
    const form = new FormData();
    form.append('file', new Blob([wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'visit.wav');
    form.append('response_format', 'json');
    form.append('temperature', '0');
    form.append('temperature_inc', '0');
    const res = await fetch(`${peer.url}/inference`, { method: 'POST', body: form });
    if (res.status !== 200) throw new Error(`whisper-server answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { text: string }).text.length;
  };
  try {
    const before = await serviceWork(service.url);
    const oursChars = await ours();
    const after = await serviceWork(service.url);
    const oursWork = { encoderRuns: after.encoderRuns - before.encoderRuns, decoderSteps: after.decoderSteps - before.decoderSteps };
    const theirsChars = await theirs();
    const theirsWork = await peerWork(model, wavPath, cores);
    const comparable = likeWithLike(oursWork, theirsWork);
    const alone: Array<[number, number]> = [];
    for (let i = 0; i < rounds; i++) alone.push([await timed(ours), await timed(theirs)]);
    const together: Array<[{ wallMs: number; worstMs: number }, { wallMs: number; worstMs: number }]> = [];
    for (let i = 0; i < concurrentRounds; i++) together.push([await concurrently(ours, clients, requests), await concurrently(theirs, clients, requests)]);

    const aloneRatio = median(alone.map((r) => r[0])) / median(alone.map((r) => r[1]));
    const concurrentRatio = median(together.map((r) => r[0].wallMs)) / median(together.map((r) => r[1].wallMs));
    printTable(
      ['run', 'alone svc-stt ms', 'alone whisper-server ms'],
      alone.map(([a, b], i) => [i + 1, round(a, 0), round(b, 0)]),
    );
    console.log('');
    printTable(
      ['run', `${clients}x${requests} svc-stt wall ms`, 'worst latency ms', `${clients}x${requests} whisper-server wall ms`, 'worst latency ms'],
      together.map(([a, b], i) => [i + 1, round(a.wallMs, 0), round(a.worstMs, 0), round(b.wallMs, 0), round(b.worstMs, 0)]),
    );
    console.log(
      `\n${arch} model, ${seconds} s of speech per request, ${cores} cores: whisper-server -t ${cores}, ` +
        'svc-stt on its default pool; greedy, no fallback, no token cap',
    );
    console.log('');
    printTable(
      ['work of one request', 'encoder runs', 'decoder steps', 'characters answered'],
      [
        ['svc-stt', oursWork.encoderRuns, oursWork.decoderSteps, oursChars],
        ['whisper-server', theirsWork.encoderRuns, theirsWork.decoderSteps, theirsChars],
      ],
    );
    console.log(comparable ? 'like with like' : 'NOT like with like (one decoder looped where the other stopped): the ratios below compare different work');
    console.log(`alone: median svc-stt / whisper-server ${round(aloneRatio)}  (bar <= 0.9)`);
    console.log(`${clients} clients x ${requests} requests: median wall time svc-stt / whisper-server ${round(concurrentRatio)}  (bar <= 0.7)`);
    printResult('peer', {
      alone: round(aloneRatio),
      concurrent: round(concurrentRatio),
      alone_ms: round(median(alone.map((r) => r[0])), 0),
      peer_alone_ms: round(median(alone.map((r) => r[1])), 0),
      concurrent_wall_ms: round(median(together.map((r) => r[0].wallMs)), 0),
      peer_concurrent_wall_ms: round(median(together.map((r) => r[1].wallMs)), 0),
      worst_latency_ms: round(median(together.map((r) => r[0].worstMs)), 0),
      peer_worst_latency_ms: round(median(together.map((r) => r[1].worstMs)), 0),
      chars: oursChars,
      peer_chars: theirsChars,
      encoder_runs: oursWork.encoderRuns,
      peer_encoder_runs: theirsWork.encoderRuns,
      decoder_steps: oursWork.decoderSteps,
      peer_decoder_steps: theirsWork.decoderSteps,
      like_with_like: comparable,
      arch,
      model_seed: modelSeed,
      speech_seed: speechSeed,
      audio_seconds: seconds,
      cores,
      clients,
      requests,
    });
  } finally {
    peer.process.kill('SIGTERM');
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
