// bench realtime: N concurrent realtime sessions, each replaying speech at real time (PCM16 frames of
// 100 ms on the wall clock), on the tiny architecture, through the real service and a `ws` client.
//   npm run bench -- realtime [--sessions 1,2,4] [--arch tiny] [--pieces 5] [--speech 4] [--silence 1.5]
//                              [--transports ws] [--ws-sessions 2] [--speaker-sessions 2] [--vocabulary 0]
// (--vocabulary N starts every session with N clinical terms: each turn_final is then a prompted decode
// with its context-free check, as an uploaded window with vocabulary is.)
// (--transports uws,ws compares the uWebSockets.js listener with ws. uWS's binaries need glibc 2.38:
// where this process cannot load it (Debian 12), the bench runs itself again on a Node.js that runs on
// Debian 13's glibc, test/helpers/newer-glibc-node.ts, made on first use from Debian's packages.)
// Latencies, measured on the client's clock against the moment it sent the audio in question:
//   partial    the event's arrival − the send time of the audio at its `end`, for each partial that
//              carries audio no earlier partial of its turn did (a revision of words already shown,
//              e.g. during a pause, is not when they were first seen);
//   turn_final the event's arrival − the send time of the turn's end: its speech `end` plus the
//              endpointing silence (0.6 s) that says the turn is over.
//   labels     (sessions with diarization) the arrival of the first speaker_labels naming a turn −
//              the send time of the turn's end, as for turn_final.
// One more run on the first transport has `speaker-sessions` sessions with diarization on: the cost
// of live speaker labels to the text's latency, compared with the same count without.
// Where the time goes (a second table, and `stages` in the JSON): each engine call of the run by kind
// (the partial's decode, the turn's final decode, the VAD's look), p50 and p95 of its wait for a compute
// slot (queue: the engine's scheduler), encoder, decoder, context-free check and the rest of its
// compute, from the engine's spans (lib-engine-stages.ts). Endpointing: the rule's 0.6 s of silence
// is before the turn_final figure starts; what the figure holds of it is the cadence of looks (one per
// 0.25 s of new audio, one at a time per session) — with event delivery, the `rest` column: the
// latency's p50 less its calls' stage p50s.
// Bars (docs/DESIGN.md "Benchmark bars"): partial p95 < 500 ms and turn_final p95 < 1000 ms at N = 2 on 2 cores.
// Each session speaks `pieces` stretches of `speech` seconds separated by `silence` seconds (a turn
// each), a different sentence order per session.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../src/config/load-config.js';
import { uwsUnavailableReason } from '../src/realtime/transport/uws-transport.js';
import { startService } from '../src/service/start-service.js';
import { openStores } from '../src/store/open-stores.js';
import { interleavedSilenceWav } from '../test/helpers/audio-fixtures.js';
import { newerGlibcNode } from '../test/helpers/newer-glibc-node.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { type EngineCall, EngineStageCollector, type StageFigures, stageFigures, STAGES } from './lib-engine-stages.js';
import { BENCH_TERMS, FRAME_MS, replay, summary } from './lib-realtime-replay.js';
import { flag, printResult, printTable, round } from './lib-report.js';

interface RunFigures {
  transport: string;
  sessions: number;
  speakers: boolean;
  labels: { count: number; p50: number; p95: number };
  partial: { count: number; p50: number; p95: number };
  turnFinal: { count: number; p50: number; p95: number };
  failed: number;
  /** Engine calls by kind: the partial's decode, the final decode, the VAD's looks. */
  stages: Record<CallKind, StageFigures>;
  /** Engine calls stopped before their end: speculative final decodes the turn outgrew. */
  stoppedCalls: number;
}

type CallKind = 'partial' | 'final' | 'vad';
const CALL_KINDS: Record<CallKind, [task: string, workClass: string]> = {
  partial: ['transcribe', 'realtime_partial'],
  final: ['transcribe', 'realtime_final'],
  vad: ['detectSpeech', 'realtime_final'],
};

function stagesOf({ calls, stopped }: { calls: readonly EngineCall[]; stopped: number }): Pick<RunFigures, 'stages' | 'stoppedCalls'> {
  const stages = Object.fromEntries(Object.entries(CALL_KINDS).map(([kind, [task, workClass]]) => [kind, stageFigures(calls, task, workClass)])) as Record<
    CallKind,
    StageFigures
  >;
  return { stages, stoppedCalls: stopped };
}

/** The latency's p50 less the p50s of the stages of the calls behind it (the VAD's look and the decode). */
function rest(latencyP50: number, stages: Record<CallKind, StageFigures>, kind: 'partial' | 'final'): number {
  const sum = (f: StageFigures) => STAGES.reduce((total, s) => total + (Number.isFinite(f.p50[s]) ? f.p50[s] : 0), 0);
  return Math.round(latencyP50 - sum(stages.vad) - sum(stages[kind]));
}

async function measure(
  transport: string,
  plan: Array<{ sessions: number; speakers: boolean }>,
  audio: Uint8Array[],
  arch: 'tiny' | 'micro',
  vocabulary: readonly string[],
  collector: EngineStageCollector,
): Promise<RunFigures[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-realtime-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_CONSOLE_PORT: '0',
    SVC_REALTIME_TRANSPORT: transport,
    SVC_MODEL: await testModelPath(arch),
    SVC_LOG_LEVEL: 'silent',
  });
  const service = await startService(config, { logger: false });
  const stores = await openStores({ instanceId: 'bench', dataDir, databaseUrl: config.database.url, webhookMasterKey: () => Buffer.alloc(32) });
  try {
    // Enterprise seats (50 sessions): the plan limit is not what is measured.
    const { key } = await stores.keys.create({ plan: 'enterprise' });
    const url = service.realtime!.url;
    await replay(url, key, audio[0].subarray(0, 3 * 32_000), 'warm-up', false);
    const results: RunFigures[] = [];
    for (const { sessions: n, speakers } of plan) {
      collector.take(); // the warm-up's, or the last run's

      const runs = await Promise.all(
        Array.from({ length: n }, (_, i) => replay(url, key, audio[i % audio.length], `${transport}-${n}-${speakers}-${i}`, speakers, vocabulary)),
      );
      results.push({
        transport,
        sessions: n,
        speakers,
        partial: summary(runs.flatMap((r) => r.partials)),
        turnFinal: summary(runs.flatMap((r) => r.turnFinals)),
        labels: summary(runs.flatMap((r) => r.labels)),
        failed: runs.filter((r) => r.closeCode !== 1000).length,
        ...stagesOf(collector.take()),
      });
    }
    return results;
  } finally {
    await stores.close();
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function run(args: string[]): Promise<void> {
  const counts = flag(args, 'sessions', '1,2,4').split(',').map(Number);
  const arch = flag(args, 'arch', 'tiny') as 'tiny' | 'micro';
  const pieces = Number(flag(args, 'pieces', '5'));
  const speech = Number(flag(args, 'speech', '4'));
  const silence = Number(flag(args, 'silence', '1.5'));
  const transports = flag(args, 'transports', 'ws').split(',');
  if (transports.includes('uws') && uwsUnavailableReason() !== null) return rerunOnNewerGlibc(args);
  const wsSessions = Number(flag(args, 'ws-sessions', '2'));
  const speakerSessions = Number(flag(args, 'speaker-sessions', '2'));
  const vocabulary = BENCH_TERMS.slice(0, Number(flag(args, 'vocabulary', '0')));
  const maxSessions = Math.max(...counts, wsSessions, speakerSessions);
  const audio = await Promise.all(
    Array.from({ length: maxSessions }, async (_, i) => (await readFile(await interleavedSilenceWav(pieces, speech, silence, { seed: 1 + i }))).subarray(44)),
  );

  const results: RunFigures[] = [];
  const collector = new EngineStageCollector();
  try {
    for (const transport of transports) {
      const plan =
        transport === transports[0]
          ? [...counts.map((sessions) => ({ sessions, speakers: false })), ...(speakerSessions > 0 ? [{ sessions: speakerSessions, speakers: true }] : [])]
          : [{ sessions: wsSessions, speakers: false }];
      results.push(...(await measure(transport, plan, audio, arch, vocabulary, collector)));
    }
  } finally {
    await collector.close();
  }
  printTable(
    [
      'transport',
      'sessions',
      'speakers',
      'partials',
      'partial p50 ms',
      'partial p95 ms',
      'turn_finals',
      'turn_final p50 ms',
      'turn_final p95 ms',
      'labels p50 ms',
      'labels p95 ms',
      'not closed 1000',
    ],
    results.map((r) => [
      r.transport,
      r.sessions,
      r.speakers ? 'on' : 'off',
      r.partial.count,
      r.partial.p50,
      r.partial.p95,
      r.turnFinal.count,
      r.turnFinal.p50,
      r.turnFinal.p95,
      r.speakers ? r.labels.p50 : '',
      r.speakers ? r.labels.p95 : '',
      r.failed,
    ]),
  );
  console.log("\nwhere the time goes: engine calls by kind, ms (queue: waiting for a compute slot; rest: latency p50 less its calls' stage p50s)");
  printTable(
    ['transport', 'sessions', 'speakers', 'calls of', 'calls', ...STAGES.flatMap((s) => [`${s} p50`, `${s} p95`]), 'rest p50', 'stopped'],
    results.flatMap((r) =>
      (Object.keys(CALL_KINDS) as CallKind[]).map((kind) => {
        const f = r.stages[kind];
        const latency = kind === 'partial' ? r.partial.p50 : kind === 'final' ? r.turnFinal.p50 : NaN;
        return [
          r.transport,
          r.sessions,
          r.speakers ? 'on' : 'off',
          kind,
          f.calls,
          ...STAGES.flatMap((s) => [f.p50[s], f.p95[s]]),
          kind === 'vad' ? '' : rest(latency, r.stages, kind),
          kind === 'final' ? r.stoppedCalls : '',
        ];
      }),
    ),
  );
  const seconds = pieces * (speech + silence);
  console.log(
    `\n${arch} model, ${seconds} s per session (${pieces} stretches of ${speech} s speech + ${silence} s silence), real time, ${FRAME_MS} ms frames, ` +
      `${vocabulary.length} vocabulary terms`,
  );
  // The espeak-ng sentences inside a stretch are 0.25 to 0.6 s apart, plus the voice's own silence at
  // their ends: where the VAD hears 0.6 s of it, the stretch is two turns by the endpointing rule.
  console.log('turns: a stretch with a pause of 0.6 s or more inside is two (7 turns per session of the default audio, 14 at 2 sessions)');
  console.log('bars at 2 sessions: partial p95 < 500 ms, turn_final p95 < 1000 ms (from the end of the turn: speech end + 0.6 s)');
  const primary = results.find((r) => r.transport === transports[0] && r.sessions === 2 && !r.speakers) ?? results[0];
  const other = results.find((r) => r.transport !== primary.transport);
  const diarized = results.find((r) => r.speakers);
  const plain = diarized && results.find((r) => r.transport === diarized.transport && r.sessions === diarized.sessions && !r.speakers);
  printResult('realtime', {
    sessions: primary.sessions,
    partial_p95_ms: primary.partial.p95,
    turn_final_p95_ms: primary.turnFinal.p95,
    transport: primary.transport,
    partial_p50_ms: primary.partial.p50,
    turn_final_p50_ms: primary.turnFinal.p50,
    arch,
    vocabulary_terms: vocabulary.length,
    stages: stagesJson(primary),
    runs: results.map((r) => ({
      transport: r.transport,
      sessions: r.sessions,
      speakers: r.speakers,
      partial_p95_ms: r.partial.p95,
      turn_final_p95_ms: r.turnFinal.p95,
      failed: r.failed,
      stages: stagesJson(r),
    })),
    ...(diarized
      ? {
          speaker_sessions: diarized.sessions,
          speakers_partial_p95_ms: diarized.partial.p95,
          speakers_turn_final_p95_ms: diarized.turnFinal.p95,
          speaker_labels_p50_ms: diarized.labels.p50,
          speaker_labels_p95_ms: diarized.labels.p95,
          ...(plain
            ? {
                speakers_partial_p95_ratio: round(diarized.partial.p95 / plain.partial.p95, 2),
                speakers_turn_final_p95_ratio: round(diarized.turnFinal.p95 / plain.turnFinal.p95, 2),
              }
            : {}),
        }
      : {}),
    ...(other ? { compared_transport: other.transport, compared_partial_p95_ms: other.partial.p95, compared_turn_final_p95_ms: other.turnFinal.p95 } : {}),
  });
}

/** Per call kind, each stage's p50 and p95 (`queue_p95_ms`, ...), and the latencies' rest. */
function stagesJson(r: RunFigures): Record<string, unknown> {
  const kinds = Object.keys(CALL_KINDS) as CallKind[];
  return {
    ...Object.fromEntries(
      kinds.map((kind) => [
        kind,
        {
          calls: r.stages[kind].calls,
          ...Object.fromEntries(
            STAGES.flatMap((s) => [
              [`${s}_p50_ms`, r.stages[kind].p50[s]],
              [`${s}_p95_ms`, r.stages[kind].p95[s]],
            ]),
          ),
        },
      ]),
    ),
    stopped_final_decodes: r.stoppedCalls,
    partial_rest_p50_ms: rest(r.partial.p50, r.stages, 'partial'),
    turn_final_rest_p50_ms: rest(r.turnFinal.p50, r.stages, 'final'),
  };
}

/** This bench again, on a Node.js that loads uWS (the same arguments, its output as this run's). */
async function rerunOnNewerGlibc(args: string[]): Promise<void> {
  console.log(`${uwsUnavailableReason()}: running on Debian 13's glibc (test/helpers/newer-glibc-node.ts)`);
  const child = spawn(await newerGlibcNode(), ['--import', 'tsx', join(import.meta.dirname, 'run.ts'), 'realtime', ...args], { stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) process.exitCode = code ?? 1;
}
